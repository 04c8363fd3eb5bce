-- Up Migration
-- The console's transit view (issue 32 item 6, ADR 0066): per account, UTC hour, recipient domain and shaping
-- destination, how that account's mail met the receiver: TLS sessions by mechanism and RFC 8460 result,
-- recipients delivered and bounced, deferrals by reason, and the latest failure's reason. An account reads
-- only its own rows; `tls_sessions` (installation-wide, the TLS reports' material) is not split by account.
-- Written only by mailroom_record_tls_sessions (core/sql/functions/mailroom_record_tls_sessions.sql), in the
-- statement that adds the same attempts' sessions to `tls_sessions`; purged after 30 days with them
-- (core/src/transit/store.ts).
create table transit_counts (
  account text not null,
  -- The UTC hour the attempt was recorded in.
  hour timestamptz not null,
  -- The recipient domain (lower case, A-labels).
  domain text not null check (length(domain) between 1 and 255),
  -- The shaping destination the attempt went to (`group:<name>` or `host:<mx>`); '' when none (relay mode,
  -- no MX reached).
  destination text not null default '' check (length(destination) <= 260),
  -- `tls`: sessions; `delivered`, `bounced`, `deferred`: recipients.
  kind text not null check (kind in ('tls', 'delivered', 'bounced', 'deferred')),
  -- `tls` only: mta-sts, dane, opportunistic or relay.
  mechanism text not null default '' check (mechanism in ('', 'mta-sts', 'dane', 'opportunistic', 'relay')),
  -- `tls`: the RFC 8460 result type; `deferred`: the reason (core/src/transit/rows.ts); else ''.
  result text not null default '' check (length(result) <= 64),
  count integer not null check (count > 0),
  -- The latest counted outcome of this row, and its reason when it was a failure (TLS failure, deferral, bounce).
  last_at timestamptz not null,
  last_reason text not null default '' check (length(last_reason) <= 255),
  -- The read's order: one account's hours of a period.
  primary key (account, hour, domain, destination, kind, mechanism, result)
);
