import type { Queryable } from "../db/pool.ts";
import { addHistograms, LATENCY_BOUNDS_MS, latencyQuantile } from "./latency.ts";
import type { StatsQuery } from "./query.ts";

const COUNTS = ["sent", "delivered", "bounced", "complained", "failed", "deferred"] as const;
export type StatsCounts = Record<(typeof COUNTS)[number], number>;

/** Counts with what the overview derives from them. */
export interface StatsFigures extends StatsCounts {
  /** Delivered over sent; null when nothing was sent. */
  deliveryRate: number | null;
  /** Accept→delivered, from the histogram (within its bucket's width); null when nothing was delivered. */
  latency: { p50Ms: number | null; p99Ms: number | null };
}

export interface StatsView {
  from: Date;
  to: Date;
  bucket: StatsQuery["bucket"];
  by: StatsQuery["by"];
  totals: StatsFigures;
  /** One entry per bucket of the period, oldest first, empty buckets included. */
  series: Array<{ start: Date } & StatsFigures>;
  /** With `by`: each domain, category or tag with mail in the period, most sent first (at most GROUPS_LIMIT). */
  groups: Array<{ value: string } & StatsFigures>;
}

/** How many domains, categories or tags a split shows: a chart's worth, the busiest. */
export const GROUPS_LIMIT = 50;

interface Row extends StatsCounts {
  key: string | Date;
  latency: number[];
}

const SUMS = COUNTS.map((c) => `sum(${c})::int as ${c}`).join(", ");
/**
 * The histograms summed element-wise by one `sum` per bucket (an aggregate calling a SQL function per row, or
 * an unnest of every row's array, took 300–440 ms over 30 days of hours; bench/stats).
 */
const HISTOGRAM = `array[${Array.from(
  { length: LATENCY_BOUNDS_MS.length + 1 },
  (_, i) => `coalesce(sum(latency[${i + 1}]), 0)`,
).join(", ")}]::int[] as latency`;

/** The counters of one account's dimension over the period, summed per `key` (a bucket's start or a value). */
const summed = (key: string, tail = "") =>
  `select ${key} as key, ${SUMS}, ${HISTOGRAM}
   from email_stats where account = $1 and dimension = $4 and hour >= $2 and hour < $3
   group by 1 ${tail}`;

function figures(counts: StatsCounts, histogram: readonly number[]): StatsFigures {
  return {
    ...counts,
    deliveryRate: counts.sent > 0 ? counts.delivered / counts.sent : null,
    latency: { p50Ms: latencyQuantile(histogram, 0.5), p99Ms: latencyQuantile(histogram, 0.99) },
  };
}

const countsOf = (row: StatsCounts): StatsCounts =>
  Object.fromEntries(COUNTS.map((c) => [c, row[c]])) as StatsCounts;

/**
 * An account's figures over a period of whole UTC buckets: totals, one point per bucket and, with `by`, per
 * domain, category or tag. Reads the hourly counters (`email_stats`, kept as mail changes state by
 * mailroom_count_email_stats), at most one row per hour and value, never the log.
 */
export async function readStats(db: Queryable, account: string, query: StatsQuery): Promise<StatsView> {
  const series = await db.query<Row>(summed("date_trunc($5, hour, 'UTC')"), [
    account,
    query.from,
    query.to,
    "",
    query.bucket,
  ]);
  const groups = query.by
    ? await db.query<Row>(
        summed(
          "value",
          `order by sum(sent) desc, sum(delivered + bounced + complained + failed + deferred) desc, value
           limit ${GROUPS_LIMIT}`,
        ),
        [account, query.from, query.to, query.by],
      )
    : { rows: [] };
  const byStart = new Map(series.rows.map((r) => [new Date(r.key).getTime(), r]));
  const step = query.bucket === "hour" ? 3_600_000 : 86_400_000;
  const points: StatsView["series"] = [];
  const zero: StatsCounts = { sent: 0, delivered: 0, bounced: 0, complained: 0, failed: 0, deferred: 0 };
  let totals = zero;
  let histogram: number[] = [];
  for (let at = query.from.getTime(); at < query.to.getTime(); at += step) {
    const row = byStart.get(at);
    const counts = row ? countsOf(row) : zero;
    points.push({ start: new Date(at), ...figures(counts, row?.latency ?? []) });
    totals = Object.fromEntries(COUNTS.map((c) => [c, totals[c] + counts[c]])) as StatsCounts;
    histogram = addHistograms(histogram, row?.latency ?? []);
  }
  return {
    from: query.from,
    to: query.to,
    bucket: query.bucket,
    by: query.by,
    totals: figures(totals, histogram),
    series: points,
    groups: groups.rows.map((r) => ({ value: String(r.key), ...figures(countsOf(r), r.latency) })),
  };
}

/** Drops the counters of hours older than `days` days (0: keeps them forever). Returns how many rows went. */
export async function purgeEmailStats(db: Queryable, now: Date, days: number): Promise<number> {
  if (days <= 0) return 0;
  const result = await db.query(
    `delete from email_stats where hour < $1::timestamptz - make_interval(days => $2)`,
    [now, days],
  );
  return result.rowCount ?? 0;
}
