-- Up Migration
-- The overview's figures (issue 33 item 1, ADR 0060): per account, hour and dimension (the whole account, its
-- sending domains, categories and tags), how many emails were sent, delivered, bounced, complained about,
-- failed and deferred, and the accept→delivered latency as a histogram. Counted as mail changes state, in the
-- transaction of the change (mailroom_count_email_stats, called by the timeline's one writer
-- mailroom_append_email_events), so `GET /v1/stats` reads at most one row per hour and value, never the log.
-- Kept MAILROOM_STATS_RETENTION_DAYS (core/src/stats/store.ts purges older hours).
create table email_stats (
  account text not null,
  -- '' (the whole account), 'domain' (the sender's domain), 'category' or 'tag' (`name:value`).
  dimension text not null check (dimension in ('', 'domain', 'category', 'tag')),
  -- The UTC hour the change happened in.
  hour timestamptz not null,
  -- The domain, category or tag; '' for the whole account.
  value text not null,
  sent integer not null default 0,
  delivered integer not null default 0,
  bounced integer not null default 0,
  complained integer not null default 0,
  failed integer not null default 0,
  deferred integer not null default 0,
  -- Deliveries per latency bucket: element i counts latencies below mailroom_stats_latency_bounds()[i] and
  -- at or above the bound before it; the last element counts those at or above the last bound.
  latency integer[] not null,
  -- The read's order: one account's dimension over a range of hours.
  primary key (account, dimension, hour, value)
);
