-- Up Migration
-- The overview's long periods (issue 33, ADR 0060): the same counters per UTC day, so a daily chart of a year
-- reads one row per day and value instead of 24. Written beside email_stats by its one writer,
-- mailroom_count_email_stats, in the same transaction and from the same grouped counts: a day's row is always
-- the sum of its hours' rows (GET /v1/stats reads days from here, hours from email_stats). The days counted
-- before this table existed are filled from email_stats once, when that function is applied
-- (mailroom_count_email_stats.sql). Purged by whole days, as email_stats (core/src/stats/store.ts).
create table if not exists email_stats_daily (
  account text not null,
  dimension text not null check (dimension in ('', 'domain', 'category', 'tag')),
  -- The UTC day (its midnight) the change happened in.
  day timestamptz not null,
  value text not null,
  sent integer not null default 0,
  delivered integer not null default 0,
  bounced integer not null default 0,
  complained integer not null default 0,
  failed integer not null default 0,
  deferred integer not null default 0,
  latency integer[] not null,
  primary key (account, dimension, day, value)
);
