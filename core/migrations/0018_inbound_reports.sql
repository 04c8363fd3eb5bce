-- Up Migration
-- Asynchronous bounces and complaints (issue 17): the SMTP receiver on the bounce domains stores each report
-- here before it answers 250, and a `process_report` job parses it and applies its effects. Complaints join
-- the suppression list; the bounce domain's MX record joins the records a domain owner publishes.

create table inbound_reports (
  id uuid primary key,
  received_at timestamptz not null default now(),
  -- The SMTP session that brought it: who sent it and to which bounce addresses.
  remote_address text not null,
  helo text,
  mail_from text,
  rcpt_to text[] not null check (cardinality(rcpt_to) > 0),
  -- The message exactly as received; it is parsed by the job, never in the SMTP session.
  raw bytea not null,
  status text not null default 'received' check (status in ('received', 'processed', 'ignored')),
  -- What the job found and did: the report's kind, the emails it named, per-recipient effects, or why not.
  outcome jsonb,
  processed_at timestamptz
);
-- The purge forgets processed reports after their retention.
create index inbound_reports_received on inbound_reports (received_at);

alter table suppressions drop constraint suppressions_reason_check;
alter table suppressions add constraint suppressions_reason_check
  check (reason in ('hard_bounce', 'complaint', 'manual'));

alter table domain_dns_records drop constraint domain_dns_records_purpose_check;
alter table domain_dns_records add constraint domain_dns_records_purpose_check
  check (purpose in ('dkim', 'spf', 'dmarc', 'mx'));
alter table domain_dns_records drop constraint domain_dns_records_type_check;
alter table domain_dns_records add constraint domain_dns_records_type_check check (type in ('TXT', 'MX'));

-- The receiver asks, for every RCPT TO, whether the domain is the bounce domain of a verified domain.
create index domains_verified_return_path on domains (return_path_domain) where status = 'verified';
