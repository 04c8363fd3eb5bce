/**
 * The overview's reads (issue 33 item 1, ADR 0060): `readStats`, what `GET /v1/stats` runs, over counters as
 * `mailroom_count_email_stats` leaves them. The counters hold one row per account, hour, dimension and value
 * whatever the number of emails, so the size that matters is hours × values (and days × values for the
 * daily periods, read from email_stats_daily, which the same writer keeps beside them): the bench account has
 * BENCH_STATS_DAYS (400, the default retention) of hours with 5 sender domains, 4 categories and
 * BENCH_STATS_TAGS (10) tags, beside BENCH_STATS_ACCOUNTS (50) other accounts of 30 days each. Each of the
 * console's periods is read BENCH_STATS_REPEAT (40) times: p50/p99 against the goal (300 ms for the overview).
 *
 * Run: `npx node bench/stats/main.ts` (part of `make bench`).
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPool, migrate } from "@mailroom/core/db";
import { normalizeStatsQuery, readStats } from "@mailroom/core/stats";
import { commandLine, int, mark, ms, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { runBenchmark } from "../shared/lifecycle.ts";
import { percentile } from "../shared/percentile.ts";
import { openBenchDatabase } from "../shared/support.ts";

const SETTINGS = [
  "BENCH_STATS_DAYS",
  "BENCH_STATS_TAGS",
  "BENCH_STATS_ACCOUNTS",
  "BENCH_STATS_REPEAT",
  "DATABASE_URL",
];
const positive = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
};
const DAYS = positive("BENCH_STATS_DAYS", 400);
const TAGS = positive("BENCH_STATS_TAGS", 10);
const ACCOUNTS = positive("BENCH_STATS_ACCOUNTS", 50);
const REPEAT = positive("BENCH_STATS_REPEAT", 40);
const GOAL_MS = 300;
const say = (line: string) => process.stdout.write(`${line}\n`);

// Every hour of `days` for `account`: the whole account, 5 domains, 4 categories, `tags` tags.
const SEED = `
insert into email_stats (account, dimension, hour, value, sent, delivered, bounced, complained, failed, deferred, latency)
select $1, d.dimension, h.hour, d.value, 1000, 980, 20, 1, 3, 7,
       array[0, 10, 200, 400, 300, 50, 10, 5, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
from generate_series(date_trunc('hour', now()) - make_interval(days => $2), date_trunc('hour', now()), '1 hour')
       as h(hour)
cross join (
  select '' as dimension, '' as value
  union all select 'domain', 'd' || i || '.bench' from generate_series(1, 5) as i
  union all select 'category', (array['receipts', 'password-reset', 'invoice', 'welcome'])[i] from generate_series(1, 4) as i
  union all select 'tag', 'plan:p' || i from generate_series(1, $3) as i
) as d`;

// The days' rows, as mailroom_count_email_stats keeps them beside the hours': each day the sum of its hours.
const DAILY = `
insert into email_stats_daily (account, dimension, day, value, sent, delivered, bounced, complained, failed, deferred, latency)
select account, dimension, date_trunc('day', hour, 'UTC'), value, sum(sent), sum(delivered), sum(bounced),
       sum(complained), sum(failed), sum(deferred),
       array[${Array.from({ length: 31 }, (_, i) => `coalesce(sum(latency[${i + 1}]), 0)`).join(", ")}]::int[]
from email_stats group by 1, 2, 3, 4`;

const PERIODS: [string, Record<string, string>][] = [
  ["24 hours, hourly", { bucket: "hour" }],
  ["7 days, hourly, by domain", { bucket: "hour", by: "domain", days: "7" }],
  ["30 days, daily, by tag", { bucket: "day", by: "tag" }],
  ["90 days, daily, by category", { bucket: "day", by: "category", days: "90" }],
  ["365 days, daily", { bucket: "day", days: "365" }],
];

await runBenchmark(3600_000, async (onCleanup) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-stats-"));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  // The embedded Postgres runs as an unprivileged user when we are root: it must reach its data directory.
  await chmod(dir, 0o755);
  const database = await openBenchDatabase(dir);
  onCleanup(() => database.close());
  await migrate({ url: database.url });
  const pool = createPool({ url: database.url, max: 2, applicationName: "bench-stats" });
  onCleanup(() => pool.end());
  await pool.query(SEED, ["bench", DAYS, TAGS]);
  for (let i = 0; i < ACCOUNTS; i += 1) await pool.query(SEED, [`other-${i}`, 30, TAGS]);
  await pool.query(DAILY);
  await pool.query("analyze email_stats; analyze email_stats_daily");
  const rows = Number((await pool.query<{ n: string }>("select count(*) as n from email_stats")).rows[0]?.n);
  const dayRows = Number(
    (await pool.query<{ n: string }>("select count(*) as n from email_stats_daily")).rows[0]?.n,
  );
  say(`seeded ${int(rows)} counter rows (${database.describe})`);
  const now = new Date();
  const results: { name: string; times: number[]; points: number }[] = [];
  for (const [name, p] of PERIODS) {
    const from = p.days ? new Date(now.getTime() - Number(p.days) * 86_400_000).toISOString() : undefined;
    const query = normalizeStatsQuery({ bucket: p.bucket, by: p.by, from }, now);
    const times: number[] = [];
    let points = 0;
    for (let i = 0; i < REPEAT; i += 1) {
      const started = performance.now();
      const view = await readStats(pool, "bench", query);
      times.push(performance.now() - started);
      points = view.series.length;
    }
    times.sort((a, b) => a - b);
    results.push({ name, times, points });
    say(`  ${name}: ${points} points, p50 ${ms(percentile(times, 50))} p99 ${ms(percentile(times, 99))} ms`);
  }
  const lines = [
    `Run ${now.toISOString().replace(/\.\d+Z$/, "Z")} with \`${commandLine("bench/stats/main.ts", SETTINGS)}\` on ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")} before the reads.`,
    "",
    `\`readStats\` (what \`GET /v1/stats\` runs) over ${int(rows)} hourly counter rows (and ${int(dayRows)} daily ones, which periods of days read): the bench account's ${DAYS} days of hours with 5 sender domains, 4 categories and ${TAGS} tags, and ${ACCOUNTS} other accounts of 30 days. The rows grow with hours × values, not with the number of emails (one row per account, hour and value; ADR 0060): the same read at 10M emails as at 1M. A shared machine: the load average above is other sessions' work. ${REPEAT} reads per period:`,
    "",
    "| period | points | p50 ms | p99 ms | goal p99 ≤ 300 ms |",
    "|---|---:|---:|---:|---|",
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.points} | ${ms(percentile(r.times, 50))} | ${ms(percentile(r.times, 99))} | ${mark(percentile(r.times, 99) <= GOAL_MS)} |`,
    ),
  ];
  await writeBenchmarkSection("## The overview's figures (make bench)", lines.join("\n"));
  return 0;
});
