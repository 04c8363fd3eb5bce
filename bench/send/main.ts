/**
 * The sending API under load, against baselines measured in the same run (issues 3 and 21). On one Postgres
 * and one kind of TLS certificate it measures (a) a bare Fastify route doing one INSERT per request, (b) the
 * naive durable build of the same stack (one transaction per request: the INSERT and `graphile_worker.add_job`),
 * (c) POST /v1/send on the real API, (d) POST /v1/send/batch of 100, then the batch's database work alone.
 * (b) runs in a database of its own on the same server, with graphile-worker installed the stock way, not on
 * Mailroom's tuned schema (bench/send/baselines.ts). Checks that every 2xx left exactly one row per email (and,
 * for (b), its job, in (b)'s database); reports req/s, emails/s,
 * p50/p99, server RSS (sampled, and the kernel's peak from /proc) and CPU; rewrites its section of
 * BENCHMARKS.md.
 * Servers and the load generator (autocannon) each run in their own process; loopback only, bounded in time.
 *
 * Run: `make bench` or `npx node bench/send/main.ts`. DATABASE_URL: use a fresh database on that server instead of
 * a throwaway embedded Postgres. BENCH_SECONDS (15), BENCH_WARMUP_SECONDS (5), BENCH_CONNECTIONS (50).
 * MAILROOM_* variables tune the API as they would `mailroom run` (e.g. MAILROOM_LOG_LEVEL, pool size);
 * BENCH_CPU_PROF=<dir> writes a CPU profile of each server process; BENCH_SERVER_LOGS=1 shows the API's log
 * (sent to /dev/null otherwise).
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createPool, migrate } from "@mailroom/core/db";
import { createKey } from "@mailroom/core/keys";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { parse } from "yaml";
import { commandLine, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import {
  type BenchDatabase,
  type Child,
  cpuTimes,
  forkChild,
  machineBusy,
  openBenchDatabase,
  warmCompileCache,
} from "../shared/support.ts";
import { prepareBaselines } from "./baselines.ts";
import { measureAcceptCeiling } from "./ceiling.ts";
import {
  type LoadJob,
  type LoadMessage,
  type LoadReport,
  requestBody,
  type ServerCommand,
  type ServerJob,
  type ServerMessage,
} from "./protocol.ts";
import {
  type RunInfo,
  type ScenarioResult,
  SECTION_HEADING,
  sectionBody,
  summaryLine,
  verdict,
} from "./report.ts";
import { checkRows, preflight, rowQueries, type Scenario, settledCount } from "./verify.ts";

const envNumber = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0`);
  return value;
};
const SECONDS = envNumber("BENCH_SECONDS", 15);
const WARMUP_SECONDS = envNumber("BENCH_WARMUP_SECONDS", 5);
const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 50);
const SERVERNAME = "localhost";
/** A directory: write a V8 CPU profile of each server process there (open it in Chrome DevTools). */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;

/** The API server, warmed into the compile cache with the workspaces (the image's entry is the CLI instead). */
const SERVER_SCRIPT = fileURLToPath(new URL("./server.ts", import.meta.url));
const say = (line: string) => process.stdout.write(`${line}\n`);

type ServerChild = Child<ServerJob | ServerCommand, ServerMessage>;
const HARD_LIMIT_MS = 20 * 60_000;
/** How the chart runs the API process: its command-line flags and its environment (values.yaml). */
interface ChartApiProcess {
  nodeFlags: string[];
  env: Record<string, string>;
}

async function chartApiProcess(): Promise<ChartApiProcess> {
  const values = parse(
    await readFile(new URL("../../charts/mailroom/values.yaml", import.meta.url), "utf8"),
  ) as {
    api?: { nodeFlags?: string[] | null; mallocArenaMax?: number | null };
  };
  const arenas = values.api?.mallocArenaMax;
  return {
    nodeFlags: values.api?.nodeFlags ?? [],
    env: arenas ? { MALLOC_ARENA_MAX: String(arenas) } : {},
  };
}

async function startServer(
  onCleanup: OnCleanup,
  job: ServerJob,
  tmp: string,
): Promise<{ child: ServerChild; port: number; poolSize: number; logLevel: string }> {
  const profile = CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`] : [];
  // The API runs as the chart runs the image (flags, environment, the compile cache the image is built with);
  // the baseline with Node's defaults.
  const chart = job.mode === "api" ? await chartApiProcess() : { nodeFlags: [], env: {} };
  const execArgv = [...chart.nodeFlags, ...profile];
  const cache =
    job.mode === "api"
      ? await warmCompileCache(path.join(tmp, "compile-cache"), execArgv, [SERVER_SCRIPT])
      : {};
  const child: ServerChild = forkChild(
    new URL("./server.ts", import.meta.url),
    !process.env.BENCH_SERVER_LOGS,
    execArgv,
    {
      ...chart.env,
      ...cache,
    },
  );
  onCleanup(async () => {
    child.send({ type: "stop" });
    await child.stop(5_000);
  });
  child.send(job);
  const ready = await child.next("ready", 60_000);
  say(`› ${job.mode} server up (pid ${child.pid}) on https://127.0.0.1:${ready.port}`);
  return { child, port: ready.port, poolSize: ready.poolSize, logLevel: ready.logLevel };
}

async function stopServer(child: ServerChild): Promise<void> {
  child.send({ type: "stop" });
  await child.stop(10_000);
}

async function runLoad(onCleanup: OnCleanup, job: LoadJob, label: string): Promise<LoadReport> {
  const child: Child<LoadJob, LoadMessage> = forkChild(new URL("./load.ts", import.meta.url), false);
  // A load generator still running when something fails is killed at once (no-op once it has exited).
  onCleanup(() => child.stop(0));
  const started = performance.now();
  let done = 0;
  let lastPrint = 0;
  child.onMessage((message) => {
    if (message.type !== "tick") return;
    done += message.count;
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed - lastPrint >= 5) {
      say(
        `    ${label} ${elapsed.toFixed(0)} s: ${Math.round(done / elapsed).toLocaleString("en-US")} req/s so far`,
      );
      lastPrint = elapsed;
    }
  });
  child.send(job);
  const { report } = await child.next("done", (job.seconds + 60) * 1000);
  await child.stop(5_000);
  return report;
}

interface Setup {
  onCleanup: OnCleanup;
  db: BenchDatabase;
  ca: string;
  runId: string;
}

async function runScenario(
  { onCleanup, db, ca, runId }: Setup,
  server: ServerChild,
  port: number,
  scenario: Scenario,
): Promise<ScenarioResult> {
  const job = (phase: string, seconds: number): LoadJob => ({
    kind: scenario.kind,
    url: `https://127.0.0.1:${port}`,
    servername: SERVERNAME,
    ca,
    path: scenario.route,
    ...(scenario.apiKey ? { apiKey: scenario.apiKey } : {}),
    connections: CONNECTIONS,
    seconds,
    keyPrefix: `${runId}-${scenario.kind}-${phase}`,
  });
  await preflight(
    port,
    SERVERNAME,
    scenario.route,
    ca,
    requestBody(scenario.kind, `${runId}-preflight`, 0),
    scenario.apiKey,
  );
  if (WARMUP_SECONDS > 0) {
    say(`› ${scenario.label}: warm-up ${WARMUP_SECONDS} s`);
    await runLoad(onCleanup, job("warm", WARMUP_SECONDS), scenario.label);
  }
  const rows = rowQueries(scenario);
  const before = await settledCount(rows.count);
  say(`› ${scenario.label}: measuring ${SECONDS} s, ${CONNECTIONS} connections`);
  server.send({ type: "phase-start" });
  const cpuBefore = cpuTimes();
  const postgresBefore = db.cpuMs?.();
  const report = await runLoad(onCleanup, job("run", SECONDS), scenario.label);
  server.send({ type: "phase-end" });
  const busy = machineBusy(cpuBefore, cpuTimes());
  const postgresAfter = db.cpuMs?.();
  const { stats } = await server.next("phase", 10_000);
  const added = (await settledCount(rows.count)) - before;
  const ok2xx = Object.entries(report.statusCounts)
    .filter(([code]) => code.startsWith("2"))
    .reduce((sum, [, count]) => sum + count, 0);
  const found = await rows.found(report.ids);
  const { ids: _ids, ...load } = report;
  const result: ScenarioResult = {
    kind: scenario.kind,
    label: scenario.label,
    load,
    ok2xx,
    server: stats,
    loadCpuMs: report.cpuMs,
    machineBusy: busy,
    ...(postgresBefore !== undefined && postgresAfter !== undefined
      ? { postgresCpuMs: postgresAfter - postgresBefore }
      : {}),
    rows: checkRows(report, ok2xx, added, found, scenario.kind),
  };
  say(summaryLine(result));
  for (const anomaly of report.anomalies) say(`    unexpected answer: ${anomaly}`);
  return result;
}

async function main(onCleanup: OnCleanup): Promise<number> {
  const loadBefore = os.loadavg();
  const runId = randomBytes(4).toString("hex");
  say(
    `Sending API benchmark on ${os.availableParallelism()} CPUs, Node ${process.version}, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")}`,
  );
  const tmp = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-send-"));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  // Under root, the embedded Postgres runs as its own system user, which must be able to enter the directory.
  await chmod(tmp, 0o755);
  const tls = await ensureLocalCertificates(path.join(tmp, "tls"), ["localhost", "127.0.0.1"]);
  const ca = await readFile(tls.caCertFile, "utf8");
  say("› starting Postgres and migrating");
  const db = await openBenchDatabase(tmp);
  onCleanup(() => db.close());
  await migrate({ url: db.url });
  const pool = createPool({ url: db.url, max: 2, applicationName: "bench-send" });
  onCleanup(() => pool.end());
  const naive = await prepareBaselines(db, pool);
  onCleanup(() => naive.pool.end());
  const key = async (account: string) =>
    (await createKey(pool, { account, scopes: ["send"], expires: "never", name: "bench" })).fullKey;
  const serverJob = (mode: ServerJob["mode"]): ServerJob => ({
    mode,
    databaseUrl: mode === "durable" ? naive.url : db.url,
    certFile: tls.certFile,
    keyFile: tls.keyFile,
  });

  const setup: Setup = { onCleanup, db, ca, runId };
  const results: ScenarioResult[] = [];
  for (const [mode, label] of [
    ["baseline", "(a) baseline: Fastify + 1 INSERT"],
    ["durable", "(b) naive durable: Fastify + transaction (INSERT + add_job), stock graphile-worker"],
  ] as const) {
    const server = await startServer(onCleanup, serverJob(mode), tmp);
    results.push(
      await runScenario(setup, server.child, server.port, {
        kind: mode,
        label,
        route: `/${mode}`,
        pool: mode === "durable" ? naive.pool : pool,
      }),
    );
    await stopServer(server.child);
  }

  const api = await startServer(onCleanup, serverJob("api"), tmp);
  for (const [kind, label] of [
    ["send", "(c) POST /v1/send"],
    ["batch", "(d) POST /v1/send/batch ×100"],
  ] as const) {
    const account = `bench-${kind}`;
    results.push(
      await runScenario(setup, api.child, api.port, {
        kind,
        label,
        route: `/v1/${kind === "send" ? "send" : "send/batch"}`,
        apiKey: await key(account),
        account,
        pool,
      }),
    );
  }
  await stopServer(api.child);

  const ceilingAccount = "bench-ceiling";
  const ceilingKey = await createKey(pool, { account: ceilingAccount, scopes: ["send"], expires: "never" });
  say(`› ceiling: the batch's database work alone, ${api.poolSize} transactions in flight, ${SECONDS} s`);
  const ceiling = await measureAcceptCeiling(db, ceilingAccount, ceilingKey.key.keyId, {
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    inFlight: api.poolSize,
    runId,
  });
  say(`    ${Math.round(ceiling.emailsPerSec).toLocaleString("en-US")} emails/s`);

  const settings = [
    "DATABASE_URL",
    "BENCH_SECONDS",
    "BENCH_WARMUP_SECONDS",
    "BENCH_CONNECTIONS",
    "BENCH_CPU_PROF",
    "MAILROOM_LOG_LEVEL",
    "MAILROOM_DATABASE_POOL_SIZE",
    "MAILROOM_RATE_LIMIT_PER_KEY",
    "MAILROOM_RATE_LIMIT_PER_ACCOUNT",
  ];
  const info: RunInfo = {
    date: new Date(),
    command: commandLine("bench/send/main.ts", settings),
    database: db.describe,
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    poolSize: api.poolSize,
    logLevel: api.logLevel,
    apiProcess: await chartApiProcess(),
    loadBefore,
    loadAfter: os.loadavg(),
  };
  const body = sectionBody(results, info, ceiling);
  await writeBenchmarkSection(SECTION_HEADING, body);
  say(`\n${SECTION_HEADING}\n\n${body}\n`);
  say("› wrote BENCHMARKS.md");
  const rowsOk = results.every((r) => r.rows.ok);
  if (!rowsOk) console.error("row check FAILED: some 2xx answers did not leave exactly one row per email");
  if (!verdict(results, ceiling).allMet) say("› some targets were missed (see above)");
  return rowsOk ? 0 : 1;
}

await runBenchmark(HARD_LIMIT_MS, main);
