import type { PoolClient, Queryable } from "../../db/pool.ts";
import type { AggregateRecord, AggregateReport } from "./parse.ts";

/** What storing a report did: per domain of the account it named, or why it stored nothing. */
export type StoreOutcome =
  | { stored: true; domains: { domain: string; messages: number; sources: number }[]; foreign: number }
  | { stored: false; reason: "domain_not_owned" | "duplicate"; foreign: number };

interface Tally {
  messages: number;
  passed: number;
  dkim: number;
  spf: number;
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

function tallyBySource(records: readonly AggregateRecord[]): Map<string, Tally> {
  const bySource = new Map<string, Tally>();
  for (const r of records) {
    const t = bySource.get(r.sourceIp) ?? { messages: 0, passed: 0, dkim: 0, spf: 0 };
    t.messages += r.count;
    if (r.dkim === "pass" || r.spf === "pass") t.passed += r.count;
    if (r.dkim === "pass") t.dkim += r.count;
    if (r.spf === "pass") t.spf += r.count;
    bySource.set(r.sourceIp, t);
  }
  return bySource;
}

/**
 * Stores an aggregate report under the account's verified domains its records name (by `header_from`: the
 * From domain Mailroom signs for). The account is the one owning the bounce domain the report came to;
 * records about any other domain, another account's included, are counted as `foreign` and dropped, so a
 * report can neither read nor write another account's data. A report already stored (same reporter and
 * report id) adds nothing. Runs in the caller's transaction (the `process_report` job's).
 */
export async function storeAggregateReport(
  client: PoolClient,
  input: { account: string; inboundReportId: string; report: AggregateReport },
): Promise<StoreOutcome> {
  const { report } = input;
  const names = [...new Set(report.records.map((r) => r.headerFrom))];
  const { rows: owned } = await client.query<{ id: string; name: string }>(
    `select id, name from domains where account = $1 and status = 'verified' and name = any($2::text[])
     order by name`,
    [input.account, names],
  );
  const idOf = new Map(owned.map((d) => [d.name, d.id]));
  const foreign = report.records.filter((r) => !idOf.has(r.headerFrom)).length;
  if (owned.length === 0) return { stored: false, reason: "domain_not_owned", foreign };
  const day = dayOf(report.begin);
  const stored: { domain: string; messages: number; sources: number }[] = [];
  for (const { id, name } of owned) {
    const records = report.records.filter((r) => r.headerFrom === name);
    const bySource = tallyBySource(records);
    const messages = records.reduce((sum, r) => sum + r.count, 0);
    const { rowCount } = await client.query(
      `insert into dmarc_reports (domain_id, reporter, report_id, inbound_report_id, begins_at, ends_at, messages)
       values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
      [id, report.reporter, report.reportId, input.inboundReportId, report.begin, report.end, messages],
    );
    if (rowCount === 0) continue;
    const ips = [...bySource.keys()];
    const tallies = ips.map((ip) => bySource.get(ip) as Tally);
    await client.query(
      `insert into dmarc_sources (domain_id, day, source_ip, messages, passed, dkim_aligned, spf_aligned, reporters)
       select $1, $2::date, s.ip::inet, s.messages, s.passed, s.dkim, s.spf, array[$8::text]
       from unnest($3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
         as s (ip, messages, passed, dkim, spf)
       on conflict (domain_id, day, source_ip) do update set
         messages = dmarc_sources.messages + excluded.messages,
         passed = dmarc_sources.passed + excluded.passed,
         dkim_aligned = dmarc_sources.dkim_aligned + excluded.dkim_aligned,
         spf_aligned = dmarc_sources.spf_aligned + excluded.spf_aligned,
         reporters = case when $8 = any(dmarc_sources.reporters) then dmarc_sources.reporters
                          else dmarc_sources.reporters || array[$8::text] end`,
      [
        id,
        day,
        ips,
        tallies.map((t) => t.messages),
        tallies.map((t) => t.passed),
        tallies.map((t) => t.dkim),
        tallies.map((t) => t.spf),
        report.reporter,
      ],
    );
    stored.push({ domain: name, messages, sources: ips.length });
  }
  if (stored.length === 0) return { stored: false, reason: "duplicate", foreign };
  return { stored: true, domains: stored, foreign };
}

/** Report days kept: a little more than the longest period the API answers (366 days). */
export const DMARC_RETENTION_DAYS = 400;

/**
 * Forgets report days older than DMARC_RETENTION_DAYS (the purge job, every five minutes), and the reports
 * they came from. Answers how many source rows went.
 */
export async function purgeDmarcData(db: Queryable, now: Date = new Date()): Promise<number> {
  const cutoff = dayOf(new Date(now.getTime() - DMARC_RETENTION_DAYS * 86_400_000));
  const sources = await db.query(`delete from dmarc_sources where day < $1::date`, [cutoff]);
  await db.query(`delete from dmarc_reports where (begins_at at time zone 'UTC')::date < $1::date`, [cutoff]);
  return sources.rowCount ?? 0;
}

export interface DmarcSource {
  sourceIp: string;
  messages: number;
  passed: number;
  dkimAligned: number;
  spfAligned: number;
  passRate: number;
  reporters: string[];
  lastSeen: string;
}

export interface DmarcSummary {
  from: string;
  to: string;
  reports: number;
  messages: number;
  passed: number;
  passRate: number | null;
  sources: DmarcSource[];
  failingSources: DmarcSource[];
}

const MAX_SOURCES = 100;
const rate = (passed: number, messages: number) =>
  messages === 0 ? 0 : Math.round((passed / messages) * 10_000) / 10_000;

/**
 * A domain's DMARC results over the last `days` days (by report day, UTC): totals, every source by volume,
 * and the sources with failures (a spoofer, a forgotten sender) by failed messages.
 */
export async function getDmarcSummary(
  db: Queryable,
  domainId: string,
  options: { days: number; now: Date },
): Promise<DmarcSummary> {
  const to = dayOf(options.now);
  const from = dayOf(new Date(options.now.getTime() - (options.days - 1) * 86_400_000));
  const { rows } = await db.query<{
    source_ip: string;
    day: string;
    messages: string;
    passed: string;
    dkim_aligned: string;
    spf_aligned: string;
    reporters: string[];
  }>(
    `select host(source_ip) as source_ip, day::text as day, messages, passed, dkim_aligned, spf_aligned,
            reporters
     from dmarc_sources where domain_id = $1 and day between $2::date and $3::date`,
    [domainId, from, to],
  );
  const { rows: counted } = await db.query<{ reports: string }>(
    `select count(*) as reports from dmarc_reports
     where domain_id = $1 and (begins_at at time zone 'UTC')::date between $2::date and $3::date`,
    [domainId, from, to],
  );
  const bySource = new Map<string, DmarcSource>();
  for (const r of rows) {
    const s = bySource.get(r.source_ip) ?? {
      sourceIp: r.source_ip,
      messages: 0,
      passed: 0,
      dkimAligned: 0,
      spfAligned: 0,
      passRate: 0,
      reporters: [],
      lastSeen: r.day,
    };
    s.messages += Number(r.messages);
    s.passed += Number(r.passed);
    s.dkimAligned += Number(r.dkim_aligned);
    s.spfAligned += Number(r.spf_aligned);
    s.reporters = [...new Set([...s.reporters, ...r.reporters])].sort();
    if (r.day > s.lastSeen) s.lastSeen = r.day;
    bySource.set(r.source_ip, s);
  }
  const sources = [...bySource.values()].map((s) => ({ ...s, passRate: rate(s.passed, s.messages) }));
  const messages = sources.reduce((sum, s) => sum + s.messages, 0);
  const passed = sources.reduce((sum, s) => sum + s.passed, 0);
  const byVolume = [...sources].sort(
    (a, b) => b.messages - a.messages || a.sourceIp.localeCompare(b.sourceIp),
  );
  const failing = sources
    .filter((s) => s.passed < s.messages)
    .sort((a, b) => b.messages - b.passed - (a.messages - a.passed) || a.sourceIp.localeCompare(b.sourceIp));
  return {
    from,
    to,
    reports: Number(counted[0]?.reports ?? 0),
    messages,
    passed,
    passRate: messages === 0 ? null : rate(passed, messages),
    sources: byVolume.slice(0, MAX_SOURCES),
    failingSources: failing.slice(0, MAX_SOURCES),
  };
}
