-- Up Migration
-- Signed webhook events (issue 5): endpoints with their signing secrets, an outbox of events written in the
-- same transaction as the state change they report, and one delivery per (endpoint, event) with its attempts.

create table webhook_endpoints (
  id uuid primary key,
  account text not null check (account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
  -- Set for operator-declared endpoints (the CR's name), so a reconcile finds its row again.
  name text check (name is null or length(name) between 1 and 253),
  url text not null check (url ~ '^https?://' and length(url) <= 2048),
  -- Event types to send; an empty array means every type.
  event_types text[] not null default '{}',
  description text check (description is null or length(description) <= 1024),
  enabled boolean not null default true,
  disabled_reason text,
  managed_by text not null default 'api' check (managed_by in ('api', 'operator')),
  -- Start of the current run of failed attempts; five days of it disables the endpoint.
  failing_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (account, name),
  check (enabled or disabled_reason is not null)
);
create index webhook_endpoints_account on webhook_endpoints (account, created_at, id);

-- Several rows per endpoint while a rotation overlaps: every unexpired secret signs each delivery.
create table webhook_secrets (
  id bigint generated always as identity primary key,
  endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
  -- `whsec_` + base64 key. Stored in clear (it must be usable to sign) but never returned after creation.
  secret text not null check (secret ~ '^whsec_[A-Za-z0-9+/]+={0,2}$'),
  created_at timestamptz not null default now(),
  -- Null for the current secret; set on the previous ones by a rotation.
  expires_at timestamptz
);
create index webhook_secrets_endpoint on webhook_secrets (endpoint_id);

create table webhook_events (
  id uuid primary key,
  -- Assigned in insertion order: events of one email (serialised by its row lock) keep their order here.
  seq bigint generated always as identity unique,
  account text not null,
  type text not null check (type ~ '^[a-z]+\.[a-z_]+$'),
  -- Events sharing a stream (e.g. `email:<id>`) reach an endpoint in seq order.
  stream text not null,
  created_at timestamptz not null default clock_timestamp(),
  data jsonb not null
);
create index webhook_events_created on webhook_events (created_at);

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
  event_id uuid not null references webhook_events (id) on delete cascade,
  stream text not null,
  event_seq bigint not null,
  state text not null default 'pending' check (state in ('pending', 'succeeded', 'failed')),
  -- Attempts made in all; the schedule step restarts at 0 when the delivery is replayed.
  attempts integer not null default 0,
  schedule_step integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- A worker holds the stream's head until this time; a crashed worker's lease simply runs out.
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  delivered_at timestamptz,
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_stream on webhook_deliveries (endpoint_id, stream, event_seq) where state = 'pending';
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id desc);

create table webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null,
  at timestamptz not null default now(),
  duration_ms integer not null,
  status_code integer,
  -- The first KiB of the receiver's answer, for debugging; never the request (it carries the signature).
  response_excerpt text,
  error text,
  next_attempt_at timestamptz
);
create index webhook_attempts_delivery on webhook_attempts (delivery_id, id);
