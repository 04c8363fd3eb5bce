-- Up Migration
-- Rate limits shared by every API replica: one counter row per bucket (key or account) and one-second
-- window. UNLOGGED: counters are worth nothing after a crash, and skipping WAL keeps the hot path cheap.
create unlogged table rate_limit_counters (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null,
  primary key (bucket, window_start)
);

-- A per-key override of the configured per-key limit (requests per second); null uses the default.
alter table api_keys add column rate_limit_per_second integer check (rate_limit_per_second > 0);
