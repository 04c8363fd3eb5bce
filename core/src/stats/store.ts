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

/**
 * Where a period's counters are read: the hours' rows (`email_stats`), or the days' (`email_stats_daily`, the
 * same counts summed per UTC day by the same writer), whose periods are whole days. A year of days is 365 rows
 * per value instead of 8,760.
 */
type StatsSource = "hours" | "days";
const SOURCES: Record<StatsSource, { table: string; time: string }> = {
  hours: { table: "email_stats", time: "hour" },
  days: { table: "email_stats_daily", time: "day" },
};

/** The counters of one account's dimension over the period, summed per `key` (a bucket's start or a value). */
const summed = (source: StatsSource, key: string, tail = "") => {
  const { table, time } = SOURCES[source];
  return `select ${key} as key, ${SUMS}, ${HISTOGRAM}
   from ${table} where account = $1 and dimension = $4 and ${time} >= $2 and ${time} < $3
   group by 1 ${tail}`;
};

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
 * domain, category or tag. Reads the counters kept as mail changes state by mailroom_count_email_stats, never
 * the log: a daily period the days' rows, an hourly one the hours' (`source` only for the test that compares
 * them).
 */
export async function readStats(
  db: Queryable,
  account: string,
  query: StatsQuery,
  source: StatsSource = query.bucket === "day" ? "days" : "hours",
): Promise<StatsView> {
  const time = SOURCES[source].time;
  const series = await db.query<Row>(summed(source, `date_trunc($5, ${time}, 'UTC')`), [
    account,
    query.from,
    query.to,
    "",
    query.bucket,
  ]);
  const groups = query.by
    ? await db.query<Row>(
        summed(
          source,
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

/**
 * Drops the counters of the UTC days that ended more than `days` days ago (0: keeps them forever), hours and
 * days alike, so both sources keep the same whole days. Returns how many rows went.
 */
export async function purgeEmailStats(db: Queryable, now: Date, days: number): Promise<number> {
  if (days <= 0) return 0;
  const cutoff = "date_trunc('day', $1::timestamptz - make_interval(days => $2), 'UTC')";
  const hours = await db.query(`delete from email_stats where hour < ${cutoff}`, [now, days]);
  const byDay = await db.query(`delete from email_stats_daily where day < ${cutoff}`, [now, days]);
  return (hours.rowCount ?? 0) + (byDay.rowCount ?? 0);
}
