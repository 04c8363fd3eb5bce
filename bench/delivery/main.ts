/**
 * Delivery to SMTP with DKIM, against a baseline measured in the same run (issue 4 item 10). On one machine,
 * one Postgres and one SMTP sink it measures:
 *   (a) baseline: nodemailer's pooled SMTP transport with its built-in DKIM (RSA-2048) straight to the sink —
 *       delivered emails/s with N sends in flight;
 *   (b) Mailroom: emails accepted with core's `acceptEmails` (batches, one transaction each) and delivered by
 *       the real worker (`startWorker`, `createTransport` relay mode, `createSigner`) — delivered emails/s from
 *       the first accept to the sink's last receipt;
 *   (c) accept-to-handover latency p50/p99 at a fixed offered rate (200 emails/s for 15 s), accepted through
 *       core's group commit as POST /v1/send does, matched by Message-ID, and broken down by stage (request → commit → job visible → job
 *       fetched → claimed → signed → 250 → recorded; bench/delivery/stages.ts says where each time comes from);
 * and checks each time that every message reached the sink exactly once with a DKIM-Signature (a sample is
 * verified with mailauth) and, for Mailroom, that every row ended `delivered`. Then it rewrites its section
 * of BENCHMARKS.md.
 *
 * Setup without DNS: the bench creates a domain with `createDomain` (RSA-2048 key encrypted under a fresh
 * key-encryption key) and marks it verified through `recordVerification` with every record reported as
 * passing — what a verification against real DNS would record — so the worker's signer signs for it.
 *
 * Processes: this orchestrator (setup, accepts, checks), the sink, the baseline sender and the Mailroom
 * worker each run on their own; loopback only; bounded in count and time; everything stops on success,
 * error or Ctrl-C.
 *
 * Run: `make bench` or `npx node bench/delivery/main.ts`. DATABASE_URL: use a fresh database on that server
 * instead of a throwaway embedded Postgres. BENCH_DELIVERY_EMAILS (4000) measured per side,
 * BENCH_DELIVERY_WARMUP (300), BENCH_DELIVERY_BATCH (100) emails per accept transaction,
 * BENCH_DELIVERY_RATE (200) and BENCH_DELIVERY_SECONDS (15) for the latency phase. MAILROOM_* variables tune
 * the worker as they would `mailroom worker` (MAILROOM_WORKER_CONCURRENCY, 20 by default, is also the
 * baseline's concurrency). BENCH_CPU_PROF=<dir> writes a CPU profile of the worker and the baseline sender
 * (summarise one with bench/shared/cpu-profile-summary.ts); BENCH_PG_STATEMENTS=1 prints Postgres's time per statement
 * of the Mailroom throughput phase (pg_stat_statements on the embedded server, bench/delivery/statements.ts);
 * BENCH_SERVER_LOGS=1 shows the worker's log.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@mailroom/core/config";
import { createPool, migrate } from "@mailroom/core/db";
import { commandLine, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import { openBenchDatabase } from "../shared/support.ts";
import { runLatency } from "./latency.ts";
import { type RunInfo, SECTION_HEADING, sectionBody, verdict } from "./report.ts";
import { ACCEPT_POOL, type DbCpu, type DeliveryRun, type DeliverySettings, setUp } from "./setup.ts";
import { measureSigningCeiling } from "./signing.ts";
import { startSink } from "./sink-control.ts";
import { STATEMENT_SETTINGS, statementMeter } from "./statements.ts";
import { runBaseline, runMailroom, startMailroomWorker } from "./throughput.ts";

const envNumber = (name: string, fallback: number, min = 1) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}`);
  return value;
};
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
const PG_STATEMENTS = process.env.BENCH_PG_STATEMENTS === "1";
const SETTINGS: DeliverySettings = Object.freeze({
  emails: envNumber("BENCH_DELIVERY_EMAILS", 4000),
  warmup: envNumber("BENCH_DELIVERY_WARMUP", 300, 0),
  batch: envNumber("BENCH_DELIVERY_BATCH", 100),
  rate: envNumber("BENCH_DELIVERY_RATE", 200),
  latencySeconds: envNumber("BENCH_DELIVERY_SECONDS", 15),
  profileArgs: CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`] : [],
  serverLogs: Boolean(process.env.BENCH_SERVER_LOGS),
});
const HARD_LIMIT_MS = 15 * 60_000;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(onCleanup: OnCleanup): Promise<number> {
  const run: DeliveryRun = { say, onCleanup, settings: SETTINGS };
  const loadBefore = os.loadavg();
  say(
    `Delivery benchmark on ${os.availableParallelism()} CPUs, Node ${process.version}, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")}`,
  );
  const tmp = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-delivery-"));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  // Under root, the embedded Postgres runs as its own system user, which must be able to enter the directory.
  await chmod(tmp, 0o755);
  say("› starting Postgres and migrating");
  // Commit timestamps: the latency phase measures from the moment Postgres committed each accept.
  const db = await openBenchDatabase(tmp, {
    track_commit_timestamp: "on",
    // WAL flush times in pg_stat_io, read around the latency phase.
    track_wal_io_timing: "on",
    ...(PG_STATEMENTS ? STATEMENT_SETTINGS : {}),
  });
  onCleanup(() => db.close());
  await migrate({ url: db.url });
  const pool = createPool({ url: db.url, max: ACCEPT_POOL, applicationName: "bench-delivery" });
  onCleanup(() => pool.end());
  if (PG_STATEMENTS) run.statements = await statementMeter(pool);
  const dbCpu: DbCpu = { cpuMs: () => db.cpuMs?.() };
  const setup = await setUp(pool, say);
  const sink = await startSink(run);
  const concurrency = loadConfig(process.env).worker.concurrency;

  say("› DKIM signing ceiling: RSA-2048 signatures/s on one core and on the thread pool");
  const signing = await measureSigningCeiling({
    domainName: setup.domain.name,
    selector: setup.selector,
    privateKeyPem: setup.privateKeyPem,
  });
  say(
    `  one core ${Math.round(signing.oneCore)}/s, all cores ${Math.round(signing.allCores)}/s; raw crypto.sign ` +
      `${Math.round(signing.rawOneCore)}/s, openssl speed ${signing.openssl === undefined ? "n/a" : `${Math.round(signing.openssl)}/s`}`,
  );
  const baseline = await runBaseline(run, setup, sink, concurrency, dbCpu);
  const worker = await startMailroomWorker(run, setup, sink, db.url);
  const mailroom = await runMailroom(run, setup, sink, worker.child, dbCpu);
  const latency = await runLatency(run, setup, sink, worker.child, dbCpu);

  const settings = [
    "DATABASE_URL",
    "BENCH_DELIVERY_EMAILS",
    "BENCH_DELIVERY_WARMUP",
    "BENCH_DELIVERY_BATCH",
    "BENCH_DELIVERY_RATE",
    "BENCH_DELIVERY_SECONDS",
    "BENCH_CPU_PROF",
    "BENCH_PG_STATEMENTS",
    "MAILROOM_LOG_LEVEL",
    "MAILROOM_WORKER_CONCURRENCY",
    "MAILROOM_DATABASE_POOL_SIZE",
  ];
  const info: RunInfo = {
    date: new Date(),
    command: commandLine("bench/delivery/main.ts", settings),
    database: db.describe,
    concurrency,
    workerPoolSize: worker.poolSize,
    logLevel: worker.logLevel,
    batch: SETTINGS.batch,
    warmup: SETTINGS.warmup,
    signing,
    loadBefore,
    loadAfter: os.loadavg(),
  };
  const body = sectionBody(baseline, mailroom, latency, info);
  await writeBenchmarkSection(SECTION_HEADING, body);
  say(`\n${SECTION_HEADING}\n\n${body}\n`);
  say("› wrote BENCHMARKS.md");
  const checksOk =
    [baseline.check, mailroom.check, latency.check].every((c) => c.ok) &&
    mailroom.rows?.ok &&
    latency.rows.ok;
  if (!checksOk) console.error("delivery check FAILED: see the check column above");
  if (!verdict(baseline, mailroom, latency).allMet) say("› some targets were missed (see above)");
  return checksOk ? 0 : 1;
}

await runBenchmark(HARD_LIMIT_MS, main);
