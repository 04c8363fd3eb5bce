-- Up Migration
-- Chaos on demand for sandbox inboxes (issue 30 item 4, ADR 0048): an account's rules, applied by the capture
-- transport where an SMTP reply would come, so the real retry plan, bounces and webhook events follow. They
-- can only touch captured (sandbox) mail: live mail never reaches the capture. Written only by
-- core/src/sandbox/chaos-store.ts (the whole set at once); gone with the account.
create table sandbox_chaos_rules (
  account text not null references accounts (account) on delete cascade,
  position int not null,
  -- null: every recipient; else one envelope recipient (any case) or `@domain` for a whole domain.
  recipient text,
  -- The share of attempts it fails (0 < share <= 1), drawn per attempt.
  share double precision not null check (share > 0 and share <= 1),
  at text not null check (at in ('rcpt', 'data')),
  action text not null check (action in ('reply', 'drop', 'slow')),
  code int check (code between 400 and 599),
  delay_seconds int check (delay_seconds between 1 and 30),
  primary key (account, position),
  check ((action = 'reply') = (code is not null)),
  check ((action = 'slow') = (delay_seconds is not null))
);
