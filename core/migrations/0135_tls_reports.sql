-- Up Migration
-- TLS reporting (RFC 8460; issue 32 item 3, ADR 0058). `tls_sessions` counts the delivery sessions of each
-- UTC day per receiving policy domain, policy, MX host, receiving address and result type: the material of a
-- day's report. Its one writer is core/sql/functions/mailroom_record_tls_sessions.sql (the deliver task's
-- recorder, core/src/tls-reports/record.ts). `tls_reports` keeps each (policy domain, day) report once, made
-- after the day ended with the `rua` the domain then published (none: no report, and no second look), and
-- `tls_report_sends` one row per report and rua: sent, still pending, or given up. Both are written only by
-- core/src/tls-reports/store.ts.
create table tls_sessions (
  day date not null,
  policy_domain text not null check (length(policy_domain) between 1 and 255),
  policy_type text not null check (policy_type in ('sts', 'tlsa', 'no-policy-found')),
  -- The policy's identity within the key (policy strings can be long; the key's index would not hold them).
  policy_sha256 bytea not null check (length(policy_sha256) = 32),
  policy_strings text[] not null default '{}',
  mx_host text not null default '' check (length(mx_host) <= 255),
  receiving_ip text not null default '' check (length(receiving_ip) <= 45),
  result_type text not null check (result_type in ('success', 'starttls-not-supported',
    'certificate-host-mismatch', 'certificate-expired', 'certificate-not-trusted', 'validation-failure',
    'tlsa-invalid', 'dnssec-invalid', 'dane-required', 'sts-policy-fetch-error', 'sts-policy-invalid',
    'sts-webpki-invalid')),
  failure_reason text not null default '' check (length(failure_reason) <= 255),
  sessions bigint not null check (sessions > 0),
  primary key (day, policy_domain, policy_type, policy_sha256, mx_host, receiving_ip, result_type, failure_reason)
);

create table tls_reports (
  policy_domain text not null check (length(policy_domain) between 1 and 255),
  day date not null,
  report_id text not null unique check (length(report_id) <= 512),
  -- The report URIs the domain published when the report was made; empty: it asked for none.
  rua text[] not null default '{}',
  report jsonb,
  created_at timestamptz not null default now(),
  primary key (policy_domain, day)
);

create table tls_report_sends (
  report_id text not null references tls_reports (report_id) on delete cascade,
  rua text not null check (length(rua) <= 2048),
  status text not null check (status in ('pending', 'sent', 'failed')),
  attempts int not null default 0 check (attempts >= 0),
  last_error text check (length(last_error) <= 1024),
  -- mailto: the reporting account's email that carries the report (its delivery is on that email's timeline).
  email_id uuid,
  updated_at timestamptz not null default now(),
  primary key (report_id, rua)
);

create index tls_report_sends_pending on tls_report_sends (report_id) where status = 'pending';
