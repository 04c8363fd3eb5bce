-- Up Migration
-- An account's policy and guard rails (issue 31 items 1 and 2, ADR 0051). The account's row (ADR 0028) gains
-- the settings an AccountPolicy (or nothing: the defaults) declares; null keeps meaning "no limit" or "the
-- installation's default". Written only through core/src/accounts/ (policy.ts, pause.ts).
alter table accounts
  -- Emails accepted per second, both doors together (a batch counts each email); null: no limit.
  add column emails_per_second integer check (emails_per_second > 0),
  -- Emails per batch request; null: the installation's MAILROOM_BATCH_MAX.
  add column batch_size integer check (batch_size > 0),
  -- Categories the account may send with; null: any.
  add column allowed_categories text[],
  -- Reputation thresholds (minimum volume, warn and pause rates of bounces and complaints); null: defaults.
  add column reputation jsonb,
  -- Which AccountPolicy declared the settings (`namespace/name`); null: none (defaults, or the API).
  add column policy text,
  -- The last resume: who and when (the guard counts only hours after it, so old mail cannot pause it again).
  add column resumed_at timestamptz,
  add column resumed_by text;

-- Emails accepted per account and window (a second, a UTC day), counted in Postgres so that the quota
-- holds across API replicas and both doors (ADR 0005's reasoning). Per-day counts must survive a crash,
-- so the table is logged. Written only by mailroom_count_account_sends; old windows purged by
-- core/src/accounts/quota.ts.
create table account_send_counters (
  account text not null,
  period text not null check (period in ('second', 'day')),
  window_start timestamptz not null,
  sent integer not null,
  primary key (account, period, window_start)
);

-- Mail held while its account is paused: the claim marks it (its job ends) and a resume hands every held
-- email a new `deliver` job. A partial index: only held mail is in it.
alter table emails add column held_at timestamptz;
create index emails_held on emails (account) where held_at is not null;

-- Sent, bounced and complained counts per account, sending domain and hour, maintained by the reputation
-- roll-up (mailroom_roll_up_reputation, the one place that counts) from the email timeline: the guard reads
-- 24 or 168 rows per pair, never the log.
create table reputation_counters (
  account text not null,
  domain text not null,
  hour timestamptz not null,
  sent integer not null default 0,
  delivered integer not null default 0,
  bounced integer not null default 0,
  complained integer not null default 0,
  primary key (account, domain, hour)
);

-- How far the roll-up has read `email_events` (by id): events up to `rolled_through` are counted;
-- `horizon` is the highest id seen at `horizon_at`, rolled once every transaction that may hold a lower id
-- has had time to commit (one row).
create table reputation_rollup (
  singleton boolean primary key default true check (singleton),
  rolled_through bigint not null,
  horizon bigint not null,
  horizon_at timestamptz not null
);

-- The guard's latest view per account (domain '') and per sending domain, per window: the figures the API,
-- the metrics and the domain resource show. Written only by core/src/reputation/store.ts.
create table reputation_rates (
  account text not null,
  domain text not null,
  window_hours integer not null check (window_hours in (24, 168)),
  sent integer not null,
  bounced integer not null,
  complained integer not null,
  level text not null check (level in ('ok', 'low_volume', 'warn', 'pause')),
  computed_at timestamptz not null,
  primary key (account, domain, window_hours)
);
