-- Up Migration
-- The audit trail (issue 33 item 4, ADR 0062): who changed what, when and from where, one row per change,
-- written in the change's own transaction only by core/src/audit/record.ts. Ids are UUIDv7, so id order is
-- time order and the list's cursor is the last id seen, as the email log's. Rows past
-- MAILROOM_AUDIT_RETENTION_DAYS are purged by the purge job.
create table audit_events (
  id uuid primary key,
  -- null only for an SMTP AUTH failure naming no known key: the installation's, shown to no account.
  account text,
  at timestamptz not null default now(),
  -- `key`: an API key (actor = key id); `person`: someone signed in (actor = their subject); `operator`: a
  -- custom resource (actor = Kind/namespace/name); `smtp`: the submission door (actor = the key id tried);
  -- `cli`: `mailroom` on the installation (actor = the OS user); `system`: Mailroom itself (the reputation guard).
  actor_kind text not null check (actor_kind in ('key', 'person', 'operator', 'smtp', 'cli', 'system')),
  actor text not null,
  -- A readable name for the actor where it has one (the key's name, the person's email).
  actor_label text,
  action text not null,
  target text,
  detail jsonb not null default '{}',
  -- From where: the client's address (HTTP) or the SMTP peer, and the HTTP user agent.
  client_ip text,
  user_agent text
);
create index audit_events_account_id on audit_events (account, id desc);
-- The purge's range scan.
create index audit_events_at on audit_events (at);
