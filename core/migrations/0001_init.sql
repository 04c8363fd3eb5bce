-- Up Migration
-- Mailroom's first schema: API keys, emails with their timeline, idempotency records.
-- Forward-only: a later change is a new numbered file, never an edit of this one.

create table api_keys (
  key_id text primary key check (key_id ~ '^[0-9A-Za-z]{12}$'),
  account text not null check (account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
  name text,
  -- SHA-256 of the 32-char secret; the secret itself is never stored.
  secret_sha256 bytea not null check (length(secret_sha256) = 32),
  scopes text[] not null check (cardinality(scopes) > 0 and scopes <@ array['send', 'domains', 'templates']),
  managed_by text not null default 'cli' check (managed_by in ('cli', 'api', 'operator')),
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_account on api_keys (account);

create table emails (
  id uuid primary key,
  account text not null,
  api_key_id text not null references api_keys (key_id),
  status text not null check (
    status in ('scheduled', 'queued', 'sending', 'delivered', 'deferred', 'bounced', 'failed', 'canceled')
  ),
  failure_reason text,
  from_header text not null,
  to_addresses text[] not null check (cardinality(to_addresses) > 0),
  subject text not null,
  html text,
  text text,
  category text not null,
  -- Stable RFC 5322 Message-ID: a retried handover carries the same one, so receivers can spot a repeat.
  message_id_header text not null unique,
  scheduled_at timestamptz,
  attempts integer not null default 0,
  last_smtp_response text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (html is not null or text is not null)
);
create index emails_account_created on emails (account, created_at desc, id desc);
-- Revocation fails the key's unsent mail: this keeps that UPDATE an index scan.
create index emails_key_unsent on emails (api_key_id) where status in ('queued', 'scheduled', 'deferred');

create table email_events (
  id bigint generated always as identity primary key,
  email_id uuid not null references emails (id) on delete cascade,
  type text not null,
  at timestamptz not null default clock_timestamp(),
  detail jsonb not null default '{}'
);
create index email_events_email on email_events (email_id, id);

create table idempotency_keys (
  account text not null,
  key text not null,
  body_sha256 bytea not null,
  -- Deferred: the idempotency row is claimed first, then the email it points to is written.
  email_id uuid not null references emails (id) on delete cascade deferrable initially deferred,
  created_at timestamptz not null default now(),
  primary key (account, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);
