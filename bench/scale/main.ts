/**
 * How cost grows with the data (issue 21 item 5). One Postgres, one account whose history grows through the
 * sizes of BENCH_SCALE_SIZES (default `0,1000000`; add 10000000 for the 10M run, ~10 GB of disk), seeded in
 * SQL (bench/scale/seed.ts). At each size, against the empty database of the same run:
 *   - accept and delivery: BENCH_SCALE_EMAILS (2000) emails accepted through core in transactions of 100 while
 *     the real worker delivers them, DKIM-signed, to the sink (emails/s each; goal ≥ 90 % of empty). The empty
 *     database is a second one on the same server with a worker of its own, measured alternately with the
 *     seeded one BENCH_SCALE_ROUNDS (3) times at each size, so both medians come from the same minutes of a
 *     shared machine (at size 0 the pair is two empty databases: the spread of the noise);
 *   - the email log: every filter, first page and a page 90 % deep, p50/p99 over BENCH_SCALE_REPEAT (40)
 *     calls of core's `listEmails` (goal p99 ≤ 50 ms);
 *   - the retention purges: rows/s of core's `purgeIdempotencyKeys`, and of `purgeExpiredEmails` removing the
 *     oldest day of the 30-day history (finished emails by rows, their events and attachments by triggers), then
 *     the rest of the oldest week, its log and timeline partitions dropped whole (bench/scale/purge.ts,
 *     ADR 0043, 0055), last;
 *   - storage: table + index + TOAST bytes per email, per table.
 *
 * Run: `make bench-scale` or `npx node bench/scale/main.ts`. BENCH_SCALE_WARMUP (300) emails warm the worker up first at
 * each size.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPool, migrate, type Pool } from "@mailroom/core/db";
import { type EmailFilter, listEmails, purgeIdempotencyKeys } from "@mailroom/core/emails";
import pg from "pg";
import { perSecond, type ThroughputResult } from "../delivery/report.ts";
import { type DbCpu, type DeliveryRun, type DeliverySettings, type Setup, setUp } from "../delivery/setup.ts";
import { type Sink, startSink } from "../delivery/sink-control.ts";
import { runMailroom, startMailroomWorker, type WorkerChild } from "../delivery/throughput.ts";
import { commandLine, int, mark, ms, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import { percentile } from "../shared/percentile.ts";
import { openBenchDatabase } from "../shared/support.ts";
import { measurePurges, type PurgeFigures, partitionSeededWeeks } from "./purge.ts";
import { SEARCH_FILTERS } from "./search.ts";
import { seedEmails } from "./seed.ts";

const SECTION_HEADING = "## Cost as the data grows (make bench-scale)";
const GOALS = { ratio: 0.9, logP99Ms: 50 };
const SIZES = (process.env.BENCH_SCALE_SIZES ?? "0,1000000").split(",").map((s) => {
  const n = Number(s.trim());
  if (!Number.isInteger(n) || n < 0) throw new Error(`BENCH_SCALE_SIZES: not a size: ${s}`);
  return n;
});
const positive = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
};
const SETTINGS: DeliverySettings = Object.freeze({
  emails: positive("BENCH_SCALE_EMAILS", 2000),
  warmup: positive("BENCH_SCALE_WARMUP", 300),
  batch: 100,
  rate: 1,
  latencySeconds: 1,
  profileArgs: [],
  serverLogs: Boolean(process.env.BENCH_SERVER_LOGS),
});
const REPEAT = positive("BENCH_SCALE_REPEAT", 40);
const ROUNDS = positive("BENCH_SCALE_ROUNDS", 3);
const HARD_LIMIT_MS = 4 * 3600_000;
const TABLES = ["emails", "email_events", "email_attachments", "idempotency_keys", "email_addresses"];

const say = (line: string) => process.stdout.write(`${line}\n`);

type Filter = Omit<EmailFilter, "limit" | "after">;
const TEN_DAYS_AGO = Date.now() - 10 * 86_400_000;
const FILTERS: [string, Filter][] = [
  ["none", {}],
  ["status=bounced (3 %)", { status: "bounced" }],
  ["status=queued (1 %)", { status: "queued" }],
  ["to (5 per 1M)", { to: "customer-123@example23.test" }],
  ["from (20 %)", { from: "sender2@acme.bench" }],
  ["from, no match", { from: "nobody@acme.bench" }],
  ["category (25 %)", { category: "invoice" }],
  ["category, no match", { category: "none-such" }],
  ["tag (10 %)", { tag: { name: "plan", value: "p3" } }],
  ["since/until (1 h)", { since: new Date(TEN_DAYS_AGO), until: new Date(TEN_DAYS_AGO + 3600_000) }],
  ...SEARCH_FILTERS,
];

/** A database with its bench account, domain and worker. */
interface Side {
  setup: Setup;
  worker: WorkerChild;
}

/** Medians over the rounds: emails/s accepted and delivered. */
interface Rates {
  accept: number;
  delivered: number;
}

interface SizeResult {
  size: number;
  seeded: Rates;
  empty: Rates;
  log: { name: string; first: number[]; deep: number[] }[];
  purge: { rows: number; seconds: number };
  emailPurge: { day: PurgeFigures; week: PurgeFigures };
  bytesPerEmail: Record<string, number>;
}

async function timeLog(setup: Setup, filter: Filter, after: string | undefined): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i += 1) {
    const started = performance.now();
    await listEmails(setup.pool, setup.account, { ...filter, limit: 20, after });
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

function medians(runs: ThroughputResult[]): Rates {
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  return {
    accept: median(runs.map((r) => r.acceptPerSecond ?? 0)),
    delivered: median(runs.map(perSecond)),
  };
}

async function measure(
  seededSide: Side,
  emptySide: Side,
  size: number,
  deliver: (side: Side) => Promise<ThroughputResult>,
) {
  const { setup } = seededSide;
  say(`\n› ${int(size)} emails in the history`);
  const seededRuns: ThroughputResult[] = [];
  const emptyRuns: ThroughputResult[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    say(`  round ${round}/${ROUNDS}: the empty database, then the seeded one`);
    emptyRuns.push(await deliver(emptySide));
    seededRuns.push(await deliver(seededSide));
  }
  const seeded = medians(seededRuns);
  const empty = medians(emptyRuns);
  say(
    `  medians: accept ${int(seeded.accept)}/s (empty ${int(empty.accept)}/s), ` +
      `delivered ${int(seeded.delivered)}/s (empty ${int(empty.delivered)}/s)`,
  );
  const { rows } = await setup.pool.query<{ id: string }>(
    "select id from emails where account = $1 order by id desc offset $2 limit 1",
    [setup.account, Math.floor(size * 0.9)],
  );
  const deepCursor = rows[0]?.id;
  const log: SizeResult["log"] = [];
  for (const [name, filter] of FILTERS) {
    const first = await timeLog(setup, filter, undefined);
    const deep = deepCursor ? await timeLog(setup, filter, deepCursor) : [];
    log.push({ name, first, deep });
    say(
      `  log ${name}: first page p50 ${ms(percentile(first, 50))} p99 ${ms(percentile(first, 99))} ms` +
        (deep.length ? `, 90 % deep p50 ${ms(percentile(deep, 50))} p99 ${ms(percentile(deep, 99))} ms` : ""),
    );
  }
  const purgeStarted = performance.now();
  const purged = await purgeIdempotencyKeys(setup.pool, 24);
  const purge = { rows: purged, seconds: (performance.now() - purgeStarted) / 1000 };
  say(`  idempotency purge: ${int(purged)} rows in ${purge.seconds.toFixed(2)} s`);
  const count = Number(
    (await setup.pool.query<{ n: string }>("select count(*) as n from emails")).rows[0]?.n ?? 0,
  );
  const bytesPerEmail: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows: sizeRows } = await setup.pool.query<{ bytes: string }>(
      "select coalesce((select sum(pg_total_relation_size(relid)) from pg_partition_tree($1::regclass)), pg_total_relation_size($1::regclass)) as bytes",
      [table],
    );
    bytesPerEmail[table] = Number(sizeRows[0]?.bytes ?? 0) / Math.max(1, count);
  }
  const emailPurge = await measurePurges(setup.pool, HARD_LIMIT_MS);
  for (const [what, p] of Object.entries(emailPurge)) {
    say(
      `  email purge (${what}): ${int(p.emails)} emails, partitions [${p.partitions.join(", ")}] in ${p.seconds.toFixed(2)} s`,
    );
  }
  return { size, seeded, empty, log, purge, emailPurge, bytesPerEmail } satisfies SizeResult;
}

const purgeFigures = (p: PurgeFigures) =>
  `${int(p.emails)} emails${p.partitions.length ? ` and ${p.partitions.length} partition(s)` : ""} in ${p.seconds.toFixed(2)} s (${int(p.emails / Math.max(p.seconds, 1e-3))} emails/s)`;

function report(results: SizeResult[]): string {
  const lines = [
    `Run ${new Date().toISOString().slice(0, 16)}Z (${commandLine("bench/scale/main.ts", ["BENCH_SCALE_SIZES", "BENCH_SCALE_EMAILS", "BENCH_SCALE_REPEAT", "BENCH_SCALE_ROUNDS"])}), ` +
      `${os.availableParallelism()} CPUs, load after ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}. ` +
      `${int(SETTINGS.emails)} emails accepted and delivered per run; at each size ${ROUNDS} runs on the seeded ` +
      `database alternate with ${ROUNDS} on an empty one (same server, its own worker): medians, and their ratio. ` +
      `Log queries are core's listEmails, 20 per page, ${REPEAT} calls each.`,
    "",
    "| emails in history | accept/s | empty | ratio | delivered/s | empty | ratio | bytes per email (emails, events, attachments, idempotency, searched addresses) |",
    "|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of results) {
    const acceptRatio = r.seeded.accept / r.empty.accept;
    const deliveryRatio = r.seeded.delivered / r.empty.delivered;
    lines.push(
      `| ${int(r.size)} | ${int(r.seeded.accept)} | ${int(r.empty.accept)} | ${acceptRatio.toFixed(2)} ${mark(acceptRatio >= GOALS.ratio)} | ` +
        `${int(r.seeded.delivered)} | ${int(r.empty.delivered)} | ${deliveryRatio.toFixed(2)} ${mark(deliveryRatio >= GOALS.ratio)} | ` +
        `${TABLES.map((t) => int(r.bytesPerEmail[t] ?? 0)).join(" / ")} |`,
    );
  }
  lines.push("", "Email log, p50 / p99 ms (first page; page 90 % deep):", "");
  lines.push(`| filter | ${results.map((r) => int(r.size)).join(" | ")} |`);
  lines.push(`|---|${results.map(() => "---:").join("|")}|`);
  for (const [i, [name]] of FILTERS.entries()) {
    const cells = results.map((r) => {
      const q = r.log[i];
      if (!q) return "";
      const p = (t: number[]) => (t.length ? `${ms(percentile(t, 50))} / ${ms(percentile(t, 99))}` : "–");
      const worst = Math.max(percentile(q.first, 99), q.deep.length ? percentile(q.deep, 99) : 0);
      return `${p(q.first)}; ${p(q.deep)} ${worst <= GOALS.logP99Ms ? "" : "✗"}`;
    });
    lines.push(`| ${name} | ${cells.join(" | ")} |`);
  }
  lines.push(
    "",
    `Idempotency retention purge: ${results.map((r) => `${int(r.purge.rows)} rows in ${r.purge.seconds.toFixed(2)} s at ${int(r.size)}`).join("; ")}. ` +
      `Email retention purge, the oldest of 30 days by rows (timeline and attachments by triggers); then the rest of the oldest week, its log and timeline partitions dropped whole (emails deleted by rows at the edges only): ${results.map((r) => `${purgeFigures(r.emailPurge.day)}; ${purgeFigures(r.emailPurge.week)} at ${int(r.size)}`).join("; ")}. ` +
      `Goals: accept and delivery ≥ ${GOALS.ratio * 100} % of the empty database's; every log query p99 ≤ ${GOALS.logP99Ms} ms (✗ marks a miss).`,
  );
  return lines.join("\n");
}

/** The baseline: a second database on the same server, migrated and set up alike, with a worker of its own. */
async function openEmptySide(run: DeliveryRun, pool: Pool, url: string, sink: Sink): Promise<Side> {
  const name = `bench_scale_empty_${randomBytes(4).toString("hex")}`;
  await pool.query(`create database ${name}`);
  run.onCleanup(async () => {
    await pool.query(`drop database if exists ${name} with (force)`);
  });
  const emptyUrl = new URL(url);
  emptyUrl.pathname = `/${name}`;
  await migrate({ url: emptyUrl.toString() });
  const emptyPool = createPool({ url: emptyUrl.toString(), max: 4, applicationName: "bench-scale-empty" });
  run.onCleanup(() => emptyPool.end());
  const setup = await setUp(emptyPool, run.say);
  const worker = await startMailroomWorker(run, setup, sink, emptyUrl.toString());
  return { setup, worker: worker.child };
}

async function main(onCleanup: OnCleanup): Promise<number> {
  const run: DeliveryRun = { say, onCleanup, settings: SETTINGS };
  const tmp = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-scale-"));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  await chmod(tmp, 0o755);
  say(`Scale benchmark: sizes ${SIZES.map(int).join(", ")}`);
  const db = await openBenchDatabase(tmp);
  onCleanup(() => db.close());
  await migrate({ url: db.url });
  const pool = createPool({ url: db.url, max: 4, applicationName: "bench-scale" });
  onCleanup(() => pool.end());
  const dbCpu: DbCpu = { cpuMs: () => db.cpuMs?.() };
  // The workers' own purge (every 5 minutes) would remove seeded keys and emails before the bench times their
  // purge: their retention is set past the seeded history, so only the measured calls delete rows.
  process.env.MAILROOM_EMAIL_RETENTION_DAYS = "0";
  process.env.MAILROOM_IDEMPOTENCY_RETENTION_HOURS = String(24 * 30);
  const setup = await setUp(pool, say);
  await partitionSeededWeeks(pool, 30);
  const sink = await startSink(run);
  const worker = await startMailroomWorker(run, setup, sink, db.url);
  const seededSide: Side = { setup, worker: worker.child };
  const emptySide = await openEmptySide(run, pool, db.url, sink);
  const seeder = new pg.Client({ connectionString: db.url, application_name: "bench-scale-seed" });
  await seeder.connect();
  onCleanup(() => seeder.end());
  const results: SizeResult[] = [];
  let seeded = 0;
  for (const size of [...SIZES].sort((a, b) => a - b)) {
    if (size > seeded) {
      say(`› seeding ${int(size - seeded)} emails (to ${int(size)})`);
      await seedEmails(seeder, setup.account, setup.apiKeyId, seeded, size, say);
      await seeder.query("vacuum analyze");
      seeded = size;
    }
    results.push(
      await measure(seededSide, emptySide, size, (side) =>
        runMailroom(run, side.setup, sink, side.worker, dbCpu),
      ),
    );
  }
  const body = report(results);
  await writeBenchmarkSection(SECTION_HEADING, body);
  say(`\n${SECTION_HEADING}\n\n${body}\n\n› wrote BENCHMARKS.md`);
  return 0;
}

await runBenchmark(HARD_LIMIT_MS, main);
