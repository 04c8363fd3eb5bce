-- Up Migration
-- DMARC aggregate reports (issue 29 item 3, ADR 0045). Receivers send them to the `rua` address on the
-- bounce domain; the `process_report` job reads them. `dmarc_reports` remembers each report once (by its
-- reporter and report id) so a report sent twice is counted once; `dmarc_sources` holds the counts per
-- domain, day and source IP that the API and the console show. Both are written only by
-- core/src/domains/dmarc/store.ts, in the job's transaction.
create table dmarc_reports (
  domain_id uuid not null references domains (id) on delete cascade,
  reporter text not null check (length(reporter) <= 255),
  report_id text not null check (length(report_id) <= 255),
  inbound_report_id uuid not null,
  begins_at timestamptz not null,
  ends_at timestamptz not null,
  messages bigint not null check (messages >= 0),
  received_at timestamptz not null default now(),
  primary key (domain_id, reporter, report_id)
);

create table dmarc_sources (
  domain_id uuid not null references domains (id) on delete cascade,
  day date not null,
  source_ip inet not null,
  messages bigint not null check (messages >= 0),
  -- Messages whose DMARC result passed (aligned DKIM or aligned SPF), and each mechanism's aligned passes.
  passed bigint not null check (passed >= 0 and passed <= messages),
  dkim_aligned bigint not null check (dkim_aligned >= 0 and dkim_aligned <= messages),
  spf_aligned bigint not null check (spf_aligned >= 0 and spf_aligned <= messages),
  reporters text[] not null default '{}',
  primary key (domain_id, day, source_ip)
);
