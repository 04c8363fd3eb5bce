import type { Queryable } from "../db/pool.ts";
import { queryTime as time } from "../emails/filter.ts";
import { MailroomError } from "../errors/index.ts";
import type { TlsMechanism } from "../tls-reports/outcome.ts";
import { DEFERRAL_REASONS, type DeferralReason } from "./rows.ts";
import { readShapingStates, type ShapingState } from "./shaping-state.ts";

/** How many recipient domains the view lists: the busiest of the period. */
export const TRANSIT_DOMAINS_LIMIT = 100;
const HOUR = 3_600_000;
// Counts are kept 30 days (purgeTransitCounts): a longer period would only show empty hours.
const MAX_DAYS = 31;

/** A period of whole UTC hours: `to` defaults to now, `from` to 24 hours before it. */
export function normalizeTransitPeriod(
  input: { from?: string | undefined; to?: string | undefined },
  now: Date,
): { from: Date; to: Date } {
  const end = time("to", input.to);
  // Without `to`, the period ends with the current hour (now included, even on the hour's first ms).
  const to = end ? Math.ceil(end.getTime() / HOUR) * HOUR : (Math.floor(now.getTime() / HOUR) + 1) * HOUR;
  const from = Math.floor((time("from", input.from)?.getTime() ?? to - 24 * HOUR) / HOUR) * HOUR;
  if (from >= to) throw new MailroomError("validation_error", "from: a time before to");
  if (to - from > MAX_DAYS * 24 * HOUR) {
    throw new MailroomError("validation_error", `from: at most ${MAX_DAYS} days before to`);
  }
  return { from: new Date(from), to: new Date(to) };
}

/** One recipient domain's transit over the period, as one account's mail met it. */
export interface TransitDomain {
  domain: string;
  delivered: number;
  bounced: number;
  deferred: number;
  deferrals: Array<{ reason: DeferralReason; count: number }>;
  /** TLS sessions by mechanism and result (RFC 8460 result types; `success` when the policy was met). */
  sessions: Array<{ mechanism: TlsMechanism; result: string; count: number }>;
  /** The latest failure of the period: a TLS failure, a deferral or a bounce, with its reason. */
  lastFailure: { at: Date; reason: string } | null;
  /** The shaping destinations the mail went to, with each one's current state (null: none held now). */
  destinations: Array<{ destination: string; name: string; state: ShapingState | null }>;
}

interface Row {
  domain: string;
  destination: string;
  kind: "tls" | "delivered" | "bounced" | "deferred";
  mechanism: TlsMechanism;
  result: string;
  count: number;
  lastAt: Date;
  lastReason: string;
}

const failed = (r: Row) =>
  r.kind === "bounced" || r.kind === "deferred" || (r.kind === "tls" && r.result !== "success");

/**
 * One account's transit per recipient domain over a period of whole hours (ADR 0066): its own counts from
 * `transit_counts` (the busiest `TRANSIT_DOMAINS_LIMIT` domains), and the current shaping state of the
 * destinations they went to, which is about the receiver and the same for every account.
 */
export async function readTransit(
  db: Queryable,
  account: string,
  period: { from: Date; to: Date },
): Promise<{ from: Date; to: Date; domains: TransitDomain[] }> {
  const { rows } = await db.query<Row>(
    `with period as (
       select domain, destination, kind, mechanism, result, sum(count)::int as count, max(last_at) as "lastAt",
              (array_agg(last_reason order by last_at desc))[1] as "lastReason"
       from transit_counts where account = $1 and hour >= $2 and hour < $3
       group by 1, 2, 3, 4, 5
     ), busiest as (
       select domain from period group by domain
       order by coalesce(sum(count) filter (where kind <> 'tls'), 0) desc, domain limit $4
     )
     select p.* from period p join busiest using (domain) order by domain, kind, mechanism, result`,
    [account, period.from, period.to, TRANSIT_DOMAINS_LIMIT],
  );
  const states = await readShapingStates(db, [...new Set(rows.map((r) => r.destination).filter(Boolean))]);
  const domains = new Map<string, TransitDomain>();
  for (const row of rows) {
    let d = domains.get(row.domain);
    if (!d) {
      d = {
        domain: row.domain,
        delivered: 0,
        bounced: 0,
        deferred: 0,
        deferrals: [],
        sessions: [],
        lastFailure: null,
        destinations: [],
      };
      domains.set(row.domain, d);
    }
    if (row.kind === "tls") {
      const same = d.sessions.find((s) => s.mechanism === row.mechanism && s.result === row.result);
      if (same) same.count += row.count;
      else d.sessions.push({ mechanism: row.mechanism, result: row.result, count: row.count });
    } else d[row.kind] += row.count;
    if (row.kind === "deferred") {
      const reason = (DEFERRAL_REASONS as readonly string[]).includes(row.result)
        ? (row.result as DeferralReason)
        : "connection";
      const same = d.deferrals.find((x) => x.reason === reason);
      if (same) same.count += row.count;
      else d.deferrals.push({ reason, count: row.count });
    }
    if (failed(row) && (!d.lastFailure || row.lastAt > d.lastFailure.at)) {
      d.lastFailure = { at: row.lastAt, reason: row.lastReason || row.result };
    }
    if (row.destination && !d.destinations.some((x) => x.destination === row.destination)) {
      d.destinations.push({
        destination: row.destination,
        name: row.destination.replace(/^(group|host):/, ""),
        state: states.get(row.destination) ?? null,
      });
    }
  }
  const byVolume = (d: TransitDomain) => d.delivered + d.bounced + d.deferred;
  return {
    ...period,
    domains: [...domains.values()].sort(
      (a, b) => byVolume(b) - byVolume(a) || a.domain.localeCompare(b.domain),
    ),
  };
}

// Kept as long as the TLS report counts they are written with (core/src/tls-reports/store.ts).
const KEEP_DAYS = 30;

/** Drops transit counts of hours more than 30 days before `now` (with the TLS counts, hourly). */
export async function purgeTransitCounts(db: Queryable, now: Date): Promise<void> {
  await db.query("delete from transit_counts where hour < $1::timestamptz - make_interval(days => $2)", [
    now,
    KEEP_DAYS,
  ]);
}
