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
 * each size. BENCH_SCALE_KEEP=<dir> (outside the repo, e.g. /work/bench-cache/scale-10m) keeps the seeded
 * database in that directory and reuses it next time: only sizes above what it holds are seeded, new migrations
 * apply to it, and the retention purges, which would shrink it, are skipped (bench/scale/kept.ts).
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPool, migrate, type Pool } from "@mailroom/core/db";
import { listEmails, purgeIdempotencyKeys } from "@mailroom/core/emails";
import pg from "pg";
import { perSecond, type ThroughputResult } from "../delivery/report.ts";
import { type DbCpu, type DeliveryRun, type DeliverySettings, type Setup, setUp } from "../delivery/setup.ts";
import { type Sink, startSink } from "../delivery/sink-control.ts";
import { runMailroom, startMailroomWorker, type WorkerChild } from "../delivery/throughput.ts";
import { int, ms, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import { percentile } from "../shared/percentile.ts";
import { openScaleDatabase } from "./kept.ts";
import { measurePurges, partitionSeededWeeks } from "./purge.ts";
import { type Rates, report, type SizeResult } from "./report.ts";
import { LOG_FILTERS as FILTERS, type Filter } from "./search.ts";
import { seedEmails } from "./seed.ts";

const SECTION_HEADING = "## Cost as the data grows (make bench-scale)";
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

/** A database with its bench account, domain and worker. */
interface Side {
  setup: Setup;
  worker: WorkerChild;
}

/** The calls' times, ascending, and the slowest of the first 40 (the default run's p99, for a longer run). */
async function timeLog(setup: Setup, filter: Filter, after: string | undefined) {
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i += 1) {
    const started = performance.now();
    await listEmails(setup.pool, setup.account, { ...filter, limit: 20, after });
    times.push(performance.now() - started);
  }
  return { sorted: [...times].sort((a, b) => a - b), first40: Math.max(...times.slice(0, 40)) };
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
  kept: boolean,
  deliver: (side: Side) => Promise<ThroughputResult>,
  reader: pg.Client,
): Promise<SizeResult> {
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
  // Through a client without the pool's request timeout: at 10M this offset reads 9M index entries.
  const { rows } = await reader.query<{ id: string }>(
    "select id from emails where account = $1 order by id desc offset $2 limit 1",
    [setup.account, Math.floor(size * 0.9)],
  );
  const deepCursor = rows[0]?.id;
  const log: SizeResult["log"] = [];
  for (const [name, filter] of FILTERS) {
    const firstCalls = await timeLog(setup, filter, undefined);
    const deepCalls = deepCursor ? await timeLog(setup, filter, deepCursor) : undefined;
    const [first, deep] = [firstCalls.sorted, deepCalls?.sorted ?? []];
    log.push({ name, first, deep });
    const of40 = REPEAT > 40 ? `; slowest of the first 40 calls ${ms(firstCalls.first40)}` : "";
    const deepOf40 = REPEAT > 40 && deepCalls ? `; slowest of the first 40 ${ms(deepCalls.first40)}` : "";
    say(
      `  log ${name}: first page p50 ${ms(percentile(first, 50))} p99 ${ms(percentile(first, 99))} ms${of40}` +
        (deep.length
          ? `, 90 % deep p50 ${ms(percentile(deep, 50))} p99 ${ms(percentile(deep, 99))} ms${deepOf40}`
          : ""),
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
  const emailPurge = kept ? undefined : await measurePurges(setup.pool, HARD_LIMIT_MS);
  if (!emailPurge) say("  email purges skipped: the history is kept (BENCH_SCALE_KEEP)");
  for (const [what, p] of Object.entries(emailPurge ?? {})) {
    say(
      `  email purge (${what}): ${int(p.emails)} emails, partitions [${p.partitions.join(", ")}] in ${p.seconds.toFixed(2)} s`,
    );
  }
  return { size, seeded, empty, log, purge, emailPurge, bytesPerEmail };
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
  const scale = await openScaleDatabase(tmp, say);
  const { db } = scale;
  onCleanup(() => db.close());
  await migrate({ url: db.url });
  await scale.prepare(db.url);
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
  let seeded = scale.seeded;
  for (const size of [...SIZES].sort((a, b) => a - b)) {
    if (size < seeded)
      throw new Error(`BENCH_SCALE_KEEP holds ${int(seeded)} emails: size ${int(size)} is below it`);
    if (size > seeded) {
      say(`› seeding ${int(size - seeded)} emails (to ${int(size)})`);
      await seedEmails(seeder, setup.account, setup.apiKeyId, seeded, size, say);
      await seeder.query("vacuum analyze");
      seeded = size;
      await scale.markSeeded(size);
    }
    results.push(
      await measure(
        seededSide,
        emptySide,
        size,
        scale.kept,
        (side) => runMailroom(run, side.setup, sink, side.worker, dbCpu),
        seeder,
      ),
    );
  }
  const body = report(results, {
    emails: SETTINGS.emails,
    rounds: ROUNDS,
    repeat: REPEAT,
    filters: FILTERS.map(([name]) => name),
    tables: TABLES,
  });
  await writeBenchmarkSection(SECTION_HEADING, body);
  say(`\n${SECTION_HEADING}\n\n${body}\n\n› wrote BENCHMARKS.md`);
  return 0;
}

await runBenchmark(HARD_LIMIT_MS, main);
