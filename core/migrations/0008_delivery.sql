-- Up Migration
-- The delivery engine (issue 4): per-recipient outcomes, the suppression list, and worker heartbeats for
-- recovering jobs of a worker that died mid-delivery.

-- Recipients still to be handed over; null means all of them (nothing tried yet). A retry sends only these.
alter table emails add column pending_recipients text[];
-- Per-recipient outcome of the last attempt: { "<address>": { "status": ..., "response": ... } }.
alter table emails add column recipient_results jsonb not null default '{}';

create table suppressions (
  account text not null,
  address text not null,
  reason text not null check (reason in ('hard_bounce', 'manual')),
  detail text,
  source_email_id uuid,
  created_at timestamptz not null default now(),
  primary key (account, address)
);

-- A worker process beats here for each of its graphile-worker ids. A worker whose beat is stale is dead:
-- its locked jobs are unlocked at once instead of after graphile-worker's four-hour lock timeout.
create table worker_heartbeats (
  worker_id text primary key,
  beat_at timestamptz not null default now()
);
