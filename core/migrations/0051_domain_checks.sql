-- Up Migration
-- Each domain's compliance checks as status (issue 29 item 2, ADR 0036): one row per (domain, check name),
-- re-evaluated at every verification (the recheck job, the verify route). `since` is when the status last
-- changed, so a regression (pass -> fail) is seen once, with its webhook event written in the same
-- transaction. Written only by core/src/domains/checks/store.ts.
create table domain_checks (
  domain_id uuid not null references domains (id) on delete cascade,
  name text not null check (name in ('SPF', 'DKIM', 'DMARC', 'BounceMX', 'ReverseDNS', 'TLS')),
  status text not null check (status in ('pass', 'fail', 'unknown')),
  reason text not null,
  checked_at timestamptz not null,
  since timestamptz not null,
  primary key (domain_id, name)
);
create index domain_checks_failing on domain_checks (name) where status = 'fail';
