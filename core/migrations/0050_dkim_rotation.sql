-- Up Migration
-- DKIM key rotation (issue 29 item 1, ADR 0035). A domain's keys each have a state in the rotation:
--   pending  - generated under a new selector and published, not yet signing (waits until DNS serves it);
--   active   - signing (RSA-2048 always, Ed25519 only beside it);
--   retiring - no longer signing, still published until withdraw_at (past the retry horizon and receivers'
--              verification lag), then deleted with its record.
-- Keys that existed before rotation are active since they were created. The decision is made in TypeScript
-- (core/src/domains/rotation/decide.ts); core/src/domains/rotation/store.ts writes what it decided.
alter table dkim_keys
  add column state text not null default 'active' check (state in ('pending', 'active', 'retiring')),
  -- A pending key: when DNS was first seen serving it (reset when a later look does not find it).
  add column served_at timestamptz,
  add column activated_at timestamptz,
  add column withdraw_at timestamptz,
  add constraint dkim_keys_retiring_withdraws check ((state = 'retiring') = (withdraw_at is not null));
update dkim_keys set activated_at = created_at;

alter table domains
  -- 0 turns scheduled rotation off; a rotation asked for (API, annotation) still runs.
  add column dkim_rotation_interval_days integer not null default 180
    check (dkim_rotation_interval_days between 0 and 3650),
  -- A rotation asked for and not yet started; `compromised` withdraws the old keys at once.
  add column dkim_rotation_requested_at timestamptz,
  add column dkim_rotation_compromised boolean not null default false,
  -- The last rotate-now token handled (the SendingDomain annotation), so one request rotates once.
  add column dkim_rotation_token text,
  -- When the rotation job looks at the domain next; also the claimer's lease (like next_check_at).
  add column dkim_rotation_check_at timestamptz not null default now();
create index domains_dkim_rotation_check on domains (dkim_rotation_check_at);
