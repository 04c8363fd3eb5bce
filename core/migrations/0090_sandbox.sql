-- Up Migration
-- Sandbox accounts and keys (issue 30 items 1 and 2, ADR 0047). A key is `live` or `sandbox`; an account is a
-- sandbox when `accounts.sandbox` (reserved by ADR 0028) is set. Whether an email leaves is decided once, at
-- accept, from the key and the account the authentication statement read, and kept on the email
-- (`emails.sandbox`): a key or account changed later cannot make queued mail leave, nor hold back live mail.
-- Adding a column with a constant default rewrites no row.
alter table api_keys add column mode text not null default 'live' check (mode in ('live', 'sandbox'));
alter table emails add column sandbox boolean not null default false;

-- What the capture transport (worker/src/transports/capture/) took instead of an SMTP server: one row per
-- SMTP transaction it stood in for (an envelope sender and its recipients), the exact signed bytes the
-- worker would have sent. A captured message lives as long as its email (on delete cascade: the log's
-- retention, core/src/emails/retention.ts). Written only by core/src/sandbox/store.ts.
create table sandbox_messages (
  id uuid primary key,
  email_id uuid not null references emails (id) on delete cascade,
  account text not null,
  envelope_from text not null,
  recipients text[] not null,
  subject text not null,
  raw bytea not null,
  received_at timestamptz not null default now()
);
-- The inbox's reads and deletes are always one account's, newest first.
create index sandbox_messages_account on sandbox_messages (account, id desc);
create index sandbox_messages_email on sandbox_messages (email_id);
