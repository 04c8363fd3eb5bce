/**
 * Delivery to SMTP with DKIM, against a baseline measured in the same run (issue 4 item 10). On one machine,
 * one Postgres and one SMTP sink it measures:
 *   (a) baseline: nodemailer's pooled SMTP transport with its built-in DKIM (RSA-2048) straight to the sink —
 *       delivered emails/s with N sends in flight;
 *   (b) Mailroom: emails accepted with core's `acceptEmails` (batches, one transaction each) and delivered by
 *       the real worker (`startWorker`, `createTransport` relay mode, `createSigner`) — delivered emails/s from
 *       the first accept to the sink's last receipt;
 *   (c) accept-to-handover latency p50/p99 at a fixed offered rate (200 emails/s for 15 s), one accept per
 *       transaction, matched by Message-ID;
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
 * Run: `make bench` or `npx node bench/delivery.ts`. DATABASE_URL: use a fresh database on that server
 * instead of a throwaway embedded Postgres. BENCH_DELIVERY_EMAILS (4000) measured per side,
 * BENCH_DELIVERY_WARMUP (300), BENCH_DELIVERY_BATCH (100) emails per accept transaction,
 * BENCH_DELIVERY_RATE (200) and BENCH_DELIVERY_SECONDS (15) for the latency phase. MAILROOM_* variables tune
 * the worker as they would `mailroom worker` (MAILROOM_WORKER_CONCURRENCY, 20 by default, is also the
 * baseline's concurrency). BENCH_CPU_PROF=<dir> writes a CPU profile of the worker and the baseline sender;
 * BENCH_SERVER_LOGS=1 shows the worker's log.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { loadConfig } from "../core/src/config/index.ts";
import { createPool, migrate, type Pool, withTransaction } from "../core/src/db/index.ts";
import {
  createDomain,
  type DomainRecord,
  generateKek,
  loadSigningKeys,
  recordVerification,
  splitTxtValue,
} from "../core/src/domains/index.ts";
import { type AcceptRequest, acceptEmails } from "../core/src/emails/index.ts";
import { createKey } from "../core/src/keys/index.ts";
import { commandLine, writeBenchmarkSection } from "./benchmarks-file.ts";
import {
  type BaselineCommand,
  type BaselineMessage,
  CATEGORY,
  DOMAIN,
  FROM,
  FROM_ADDRESS,
  HTML,
  now,
  recipient,
  type SinkCommand,
  type SinkMessage,
  type SinkReport,
  SUBJECT,
  TEXT,
  type WorkerCommand,
  type WorkerJob,
  type WorkerMessage,
} from "./delivery-protocol.ts";
import {
  type ArrivalCheck,
  checkArrivals,
  type LatencyResult,
  latencyLine,
  percentile,
  type RunInfo,
  SECTION_HEADING,
  sectionBody,
  type ThroughputResult,
  throughputLine,
  verdict,
} from "./delivery-report.ts";
import { measureSigningCeiling } from "./delivery-signing.ts";
import { type Child, cpuTimes, forkChild, machineBusy, openBenchDatabase } from "./send-support.ts";

const envNumber = (name: string, fallback: number, min = 1) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}`);
  return value;
};
const EMAILS = envNumber("BENCH_DELIVERY_EMAILS", 4000);
const WARMUP = envNumber("BENCH_DELIVERY_WARMUP", 300, 0);
const BATCH = envNumber("BENCH_DELIVERY_BATCH", 100);
const RATE = envNumber("BENCH_DELIVERY_RATE", 200);
const LATENCY_SECONDS = envNumber("BENCH_DELIVERY_SECONDS", 15);
/** The longest a wait for the sink may take: 2 min, or 20 emails/s; the whole run is bounded by HARD_LIMIT_MS. */
const WAIT_LIMIT_MS = 120_000;
const waitLimitMs = (emails: number) => Math.max(WAIT_LIMIT_MS, emails * 50);
const HARD_LIMIT_MS = 15 * 60_000;
const DKIM_SAMPLES = 5;
const ACCOUNT = "bench-delivery";
/** Accepts of the latency phase in flight at once (open loop: they start on schedule regardless). */
const ACCEPT_POOL = 6;
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;

const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type SinkChild = Child<SinkCommand, SinkMessage>;
type WorkerChild = Child<WorkerJob | WorkerCommand, WorkerMessage>;

const cleanups: (() => Promise<void>)[] = [];
async function cleanup(): Promise<void> {
  for (const step of cleanups.splice(0).reverse()) {
    await step().catch((error: unknown) => console.error("cleanup:", error));
  }
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping everything the benchmark started …`);
    void cleanup().finally(() => process.exit(130));
  });
}

const profileArgs = () =>
  CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`] : [];

// ── the sink ───────────────────────────────────────────────────────────────────────────────────────────────
interface Sink {
  url: string;
  reset(): Promise<void>;
  count(): Promise<number>;
  report(): Promise<SinkReport>;
  /** Polls until `expected` messages arrived (progress every 2 s), or throws after `waitLimitMs`. */
  waitFor(expected: number, label: string, since: number): Promise<void>;
}

async function startSink(): Promise<Sink> {
  const child: SinkChild = forkChild("./delivery-sink.ts", false);
  cleanups.push(async () => {
    child.send({ type: "stop" });
    await child.stop(5_000);
  });
  const { port } = await child.next("ready", 30_000);
  say(`› SMTP sink up (pid ${child.pid}) on smtp://127.0.0.1:${port}`);
  const count = async () => {
    child.send({ type: "count" });
    return (await child.next("count", 10_000)).count;
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    reset: async () => {
      child.send({ type: "reset" });
      await child.next("reset", 10_000);
    },
    count,
    report: async () => {
      child.send({ type: "report", samples: DKIM_SAMPLES });
      return (await child.next("report", 30_000)).report;
    },
    waitFor: async (expected, label, since) => {
      const limit = waitLimitMs(expected);
      const deadline = performance.now() + limit;
      let lastPrint = performance.now();
      for (;;) {
        const got = await count();
        if (got >= expected) return;
        if (performance.now() > deadline) {
          throw new Error(`${label}: the sink has ${got}/${expected} messages after ${limit / 1000} s`);
        }
        if (performance.now() - lastPrint >= 2_000) {
          const elapsed = (now() - since) / 1000;
          say(
            `    ${label} ${elapsed.toFixed(0)} s: ${got}/${expected} at the sink (${Math.round(got / elapsed)}/s)`,
          );
          lastPrint = performance.now();
        }
        await sleep(100);
      }
    },
  };
}

// ── DKIM, checked by a verifier that shares no code with either signer ──────────────────────────────────────
async function verifySamples(
  samples: readonly Buffer[],
  domain: DomainRecord,
): Promise<ArrivalCheck["dkim"]> {
  const records = new Map(
    domain.records.filter((r) => r.purpose === "dkim").map((r) => [r.name, splitTxtValue(r.value)]),
  );
  const problems: string[] = [];
  let pass = 0;
  for (const sample of samples) {
    const { results } = await dkimVerify(sample, {
      resolver: async (name: string, rr: string) => {
        const strings = rr === "TXT" ? records.get(name) : undefined;
        if (!strings) throw Object.assign(new Error(`no ${rr} record for ${name}`), { code: "ENOTFOUND" });
        return [strings];
      },
    });
    const verdicts = results.map((r) => r.status.result);
    if (verdicts.length > 0 && verdicts.every((v) => v === "pass")) pass += 1;
    else if (problems.length < 3) problems.push(verdicts.join("/") || "no signature");
  }
  return { pass, sampled: samples.length, problems };
}

// ── setup ──────────────────────────────────────────────────────────────────────────────────────────────────
interface Setup {
  pool: Pool;
  apiKeyId: string;
  domain: DomainRecord;
  kek: Buffer;
  privateKeyPem: string;
  selector: string;
  hostname: string;
}

async function setUp(pool: Pool): Promise<Setup> {
  const kek = generateKek();
  const { key } = await createKey(pool, {
    account: ACCOUNT,
    scopes: ["send"],
    expires: "never",
    name: "bench",
  });
  const created = await createDomain(pool, kek, { account: ACCOUNT, name: DOMAIN });
  // What a passing check against real DNS would record: every published record found as expected.
  const outcome = await recordVerification(
    pool,
    created.id,
    created.records.map((r) => ({
      purpose: r.purpose,
      name: r.name,
      required: r.required,
      status: "verified" as const,
      reason: null,
    })),
  );
  const domain = outcome?.domain;
  if (domain?.status !== "verified") throw new Error(`domain not verified: ${domain?.status}`);
  const [signing] = await loadSigningKeys(pool, kek, domain);
  const bits = signing?.privateKey.asymmetricKeyDetails?.modulusLength;
  if (signing?.algorithm !== "rsa" || bits !== 2048) {
    throw new Error(`expected an RSA-2048 DKIM key, got ${signing?.algorithm} ${bits}`);
  }
  say(`› domain ${domain.name} verified (DKIM selector ${signing.selector}, RSA-${bits})`);
  return {
    pool,
    apiKeyId: key.keyId,
    domain,
    kek,
    privateKeyPem: signing.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    selector: signing.selector,
    hostname: loadConfig(process.env).smtp.hostname,
  };
}

const acceptItem = (setup: Setup, i: number): AcceptRequest => ({
  account: ACCOUNT,
  apiKeyId: setup.apiKeyId,
  draft: {
    from: FROM,
    fromAddress: FROM_ADDRESS,
    to: [recipient(i)],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: SUBJECT,
    html: HTML,
    text: TEXT,
    category: CATEGORY,
    headers: {},
    attachments: [],
    tags: [],
  },
});

/** Accepts emails `from`…`from + count - 1` in transactions of BATCH; returns their Message-ID headers. */
async function acceptBatches(setup: Setup, from: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = from; start < from + count; start += BATCH) {
    const items = Array.from({ length: Math.min(BATCH, from + count - start) }, (_, k) =>
      acceptItem(setup, start + k),
    );
    const results = await withTransaction(setup.pool, (client) =>
      acceptEmails(client, { hostname: setup.hostname }, items),
    );
    for (const r of results) ids.push(`<${r.messageId}@${setup.hostname}>`);
  }
  return ids;
}

/** Waits until every email of `ids` (Message-ID headers) has its row `delivered`; describes the outcome. */
async function checkRows(
  setup: Setup,
  messageIds: readonly string[],
): Promise<{ ok: boolean; text: string }> {
  const ids = messageIds.map((m) => m.slice(1, m.indexOf("@")));
  const deadline = performance.now() + 30_000;
  for (;;) {
    const { rows } = await setup.pool.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from emails where id = any($1::uuid[]) group by status order by status",
      [ids],
    );
    const delivered = rows.find((r) => r.status === "delivered")?.n ?? 0;
    if (delivered === ids.length)
      return { ok: true, text: `✓ ${ids.length.toLocaleString("en-US")} delivered` };
    if (performance.now() > deadline) {
      return { ok: false, text: `✗ ${rows.map((r) => `${r.status} ${r.n}`).join(", ")} of ${ids.length}` };
    }
    await sleep(100);
  }
}

// ── (a) baseline ───────────────────────────────────────────────────────────────────────────────────────────
async function runBaseline(
  setup: Setup,
  sink: Sink,
  concurrency: number,
  db: DbCpu,
): Promise<ThroughputResult> {
  const label = "(a) baseline: nodemailer pool + DKIM";
  const child: Child<BaselineCommand, BaselineMessage> = forkChild(
    "./delivery-baseline.ts",
    false,
    profileArgs(),
  );
  cleanups.push(() => child.stop(0));
  const idPrefix = `base-${process.pid}`;
  child.send({
    smtpUrl: sink.url,
    heloName: setup.hostname,
    concurrency,
    warmup: WARMUP,
    count: EMAILS,
    idPrefix,
    dkim: { domainName: DOMAIN, keySelector: setup.selector, privateKeyPem: setup.privateKeyPem },
  });
  say(`› ${label}: warm-up ${WARMUP} emails (pid ${child.pid})`);
  await child.next("warm", waitLimitMs(WARMUP));
  await sink.waitFor(WARMUP, "warm-up", now());
  await sink.reset();
  say(`› ${label}: measuring ${EMAILS} emails, ${concurrency} in flight`);
  const machineBefore = cpuTimes();
  const postgresBefore = db.cpuMs();
  const progressFrom = now();
  child.send({ type: "go" });
  const done = child.next("done", waitLimitMs(EMAILS));
  await sink.waitFor(EMAILS, "baseline", progressFrom);
  const { result } = await done;
  const busy = machineBusy(machineBefore, cpuTimes());
  const postgresAfter = db.cpuMs();
  await child.stop(10_000);
  await sleep(200); // a straggling duplicate would show up here
  const report = await sink.report();
  const expected = new Set(Array.from({ length: EMAILS }, (_, i) => `<${idPrefix}-run-${i}@${DOMAIN}>`));
  const { check, byId } = checkArrivals(expected, report, await verifySamples(report.samples, setup.domain));
  const lastArrival = Math.max(...[...byId.values()].map((a) => a[1]));
  const seconds = (lastArrival - result.startedAt) / 1000;
  const out: ThroughputResult = {
    label,
    emails: EMAILS,
    seconds,
    senderCpuMs: result.cpuMs,
    sinkCpuMs: report.cpuMs,
    postgresCpuMs:
      postgresBefore !== undefined && postgresAfter !== undefined
        ? postgresAfter - postgresBefore
        : undefined,
    machineBusy: busy,
    check,
    errors: result.errors,
  };
  say(throughputLine(out));
  return out;
}

// ── (b) Mailroom throughput ────────────────────────────────────────────────────────────────────────────────
async function startMailroomWorker(setup: Setup, sink: Sink, databaseUrl: string) {
  const child: WorkerChild = forkChild("./delivery-worker.ts", !process.env.BENCH_SERVER_LOGS, profileArgs());
  cleanups.push(async () => {
    child.send({ type: "stop" });
    await child.stop(15_000);
  });
  child.send({ databaseUrl, smtpUrl: sink.url, kek: setup.kek.toString("base64") });
  const ready = await child.next("ready", 60_000);
  say(
    `› Mailroom worker up (pid ${child.pid}): concurrency ${ready.concurrency}, ${ready.poolSize} Postgres connections, relay to ${sink.url}`,
  );
  return { child, ...ready };
}

interface DbCpu {
  cpuMs(): number | undefined;
}

async function runMailroom(
  setup: Setup,
  sink: Sink,
  worker: WorkerChild,
  db: DbCpu,
): Promise<ThroughputResult> {
  const label = "(b) Mailroom: accept → worker → sink";
  if (WARMUP > 0) {
    say(`› ${label}: warm-up ${WARMUP} emails`);
    const warm = await acceptBatches(setup, 0, WARMUP);
    await sink.waitFor(WARMUP, "warm-up", now());
    await checkRows(setup, warm);
  }
  await sink.reset();
  say(`› ${label}: measuring ${EMAILS} emails, accepted in transactions of ${BATCH}`);
  worker.send({ type: "phase-start" });
  const machineBefore = cpuTimes();
  const postgresBefore = db.cpuMs();
  const startedAt = now();
  const ids = await acceptBatches(setup, WARMUP, EMAILS);
  const acceptSeconds = (now() - startedAt) / 1000;
  say(`    accepted ${EMAILS} in ${acceptSeconds.toFixed(2)} s (${Math.round(EMAILS / acceptSeconds)}/s)`);
  await sink.waitFor(EMAILS, "mailroom", startedAt);
  const busy = machineBusy(machineBefore, cpuTimes());
  const postgresAfter = db.cpuMs();
  worker.send({ type: "phase-end" });
  const phase = await worker.next("phase", 10_000);
  const rows = await checkRows(setup, ids);
  const report = await sink.report();
  const { check, byId } = checkArrivals(
    new Set(ids),
    report,
    await verifySamples(report.samples, setup.domain),
  );
  const lastArrival = Math.max(...[...byId.values()].map((a) => a[1]));
  const out: ThroughputResult = {
    label,
    emails: EMAILS,
    seconds: (lastArrival - startedAt) / 1000,
    senderCpuMs: phase.cpuMs,
    senderRssPeakMb: phase.rssPeakMb,
    sinkCpuMs: report.cpuMs,
    postgresCpuMs:
      postgresBefore !== undefined && postgresAfter !== undefined
        ? postgresAfter - postgresBefore
        : undefined,
    machineBusy: busy,
    check,
    rows,
    errors: [],
  };
  say(throughputLine(out));
  return out;
}

// ── (c) latency at a fixed offered rate ────────────────────────────────────────────────────────────────────
/**
 * When each accept committed, by Message-ID: Postgres's own commit timestamps where the server keeps them
 * (`track_commit_timestamp`, on for the embedded server), read from each email's first timeline event (a row
 * the accept wrote and nothing updates). Otherwise the time this process saw the commit's answer, which on a
 * busy machine can come after the worker already handed the message over (latencies then look shorter).
 */
async function commitTimestamps(
  setup: Setup,
  observed: Map<string, number>,
): Promise<{ times: Map<string, number>; clock: LatencyResult["clock"] }> {
  const { rows: setting } = await setup.pool.query<{ on: boolean }>(
    "select current_setting('track_commit_timestamp') = 'on' as on",
  );
  if (!setting[0]?.on) return { times: observed, clock: "observed" };
  const { rows } = await setup.pool.query<{ message_id: string; committed_ms: number }>(
    `select e.message_id_header as message_id,
            extract(epoch from pg_xact_commit_timestamp(ev.xmin)) * 1000 as committed_ms
     from emails e join email_events ev on ev.email_id = e.id and ev.type = 'queued'
     where e.message_id_header = any($1::text[])`,
    [[...observed.keys()]],
  );
  return { times: new Map(rows.map((r) => [r.message_id, Number(r.committed_ms)])), clock: "postgres" };
}

async function runLatency(setup: Setup, sink: Sink, worker: WorkerChild, db: DbCpu): Promise<LatencyResult> {
  const total = RATE * LATENCY_SECONDS;
  const interval = 1000 / RATE;
  const first = WARMUP + EMAILS;
  await sink.reset();
  say(
    `› (c) latency: ${RATE} emails/s offered for ${LATENCY_SECONDS} s (${total} emails, one per transaction)`,
  );
  const committed = new Map<string, number>();
  const acceptMs: number[] = [];
  const failures: string[] = [];
  const inflight = new Set<Promise<void>>();
  worker.send({ type: "phase-start" });
  const machineBefore = cpuTimes();
  const postgresBefore = db.cpuMs();
  const start = now() + 10;
  const fire = (i: number) => {
    const scheduled = start + i * interval;
    const p = withTransaction(setup.pool, (client) =>
      acceptEmails(client, { hostname: setup.hostname }, [acceptItem(setup, first + i)]),
    ).then(
      ([result]) => {
        const at = now();
        acceptMs.push(at - scheduled);
        if (result) committed.set(`<${result.messageId}@${setup.hostname}>`, at);
      },
      (error: Error) => {
        if (failures.length < 5) failures.push(error.message);
      },
    );
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  let next = 0;
  let lastPrint = now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const t = now();
      while (next < total && start + next * interval <= t) fire(next++);
      if (t - lastPrint >= 5_000) {
        say(
          `    latency ${((t - start) / 1000).toFixed(0)} s: ${next} accepts started, ${committed.size} committed`,
        );
        lastPrint = t;
      }
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(0, start + next * interval - now()));
    };
    tick();
  });
  await Promise.all(inflight);
  const lastCommit = now();
  if (failures.length > 0) throw new Error(`accepts failed: ${failures.join(" | ")}`);
  await sink.waitFor(total, "latency", start);
  const busy = machineBusy(machineBefore, cpuTimes());
  const postgresAfter = db.cpuMs();
  worker.send({ type: "phase-end" });
  const phase = await worker.next("phase", 10_000);
  const rows = await checkRows(setup, [...committed.keys()]);
  const report = await sink.report();
  const { check, byId } = checkArrivals(
    new Set(committed.keys()),
    report,
    await verifySamples(report.samples, setup.domain),
  );
  const commits = await commitTimestamps(setup, committed);
  const latencies = [...byId.values()]
    .map(([id, at]) => at - (commits.times.get(id) ?? Number.NaN))
    .sort((a, b) => a - b);
  const accepts = [...acceptMs].sort((a, b) => a - b);
  const seconds = (Math.max(...[...byId.values()].map((a) => a[1])) - start) / 1000;
  const out: LatencyResult = {
    clock: commits.clock,
    rate: RATE,
    seconds: LATENCY_SECONDS,
    emails: total,
    acceptRate: committed.size / ((lastCommit - start) / 1000),
    accept: {
      p50: percentile(accepts, 50),
      p99: percentile(accepts, 99),
      max: accepts[accepts.length - 1] ?? 0,
    },
    latency: {
      min: latencies[0] ?? Number.NaN,
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? Number.NaN,
    },
    periodSeconds: seconds,
    workerCpuMs: phase.cpuMs,
    postgresCpuMs:
      postgresBefore !== undefined && postgresAfter !== undefined
        ? postgresAfter - postgresBefore
        : undefined,
    machineBusy: busy,
    check,
    rows,
  };
  say(latencyLine(out));
  return out;
}

async function main(): Promise<number> {
  const loadBefore = os.loadavg();
  say(
    `Delivery benchmark on ${os.availableParallelism()} CPUs, Node ${process.version}, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")}`,
  );
  const tmp = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-delivery-"));
  cleanups.push(() => rm(tmp, { recursive: true, force: true }));
  // Under root, the embedded Postgres runs as its own system user, which must be able to enter the directory.
  await chmod(tmp, 0o755);
  say("› starting Postgres and migrating");
  // Commit timestamps: the latency phase measures from the moment Postgres committed each accept.
  const db = await openBenchDatabase(tmp, { track_commit_timestamp: "on" });
  cleanups.push(() => db.close());
  await migrate({ url: db.url });
  const pool = createPool({ url: db.url, max: ACCEPT_POOL, applicationName: "bench-delivery" });
  cleanups.push(() => pool.end());
  const dbCpu: DbCpu = { cpuMs: () => db.cpuMs?.() };
  const setup = await setUp(pool);
  const sink = await startSink();
  const concurrency = loadConfig(process.env).worker.concurrency;

  say("› DKIM signing ceiling: RSA-2048 signatures/s on one core and on the thread pool");
  const signing = await measureSigningCeiling({
    domainName: setup.domain.name,
    selector: setup.selector,
    privateKeyPem: setup.privateKeyPem,
  });
  say(`  one core ${Math.round(signing.oneCore)}/s, all cores ${Math.round(signing.allCores)}/s`);
  const baseline = await runBaseline(setup, sink, concurrency, dbCpu);
  const worker = await startMailroomWorker(setup, sink, db.url);
  const mailroom = await runMailroom(setup, sink, worker.child, dbCpu);
  const latency = await runLatency(setup, sink, worker.child, dbCpu);

  const settings = [
    "DATABASE_URL",
    "BENCH_DELIVERY_EMAILS",
    "BENCH_DELIVERY_WARMUP",
    "BENCH_DELIVERY_BATCH",
    "BENCH_DELIVERY_RATE",
    "BENCH_DELIVERY_SECONDS",
    "BENCH_CPU_PROF",
    "MAILROOM_LOG_LEVEL",
    "MAILROOM_WORKER_CONCURRENCY",
    "MAILROOM_DATABASE_POOL_SIZE",
  ];
  const info: RunInfo = {
    date: new Date(),
    command: commandLine("bench/delivery.ts", settings),
    database: db.describe,
    concurrency,
    workerPoolSize: worker.poolSize,
    logLevel: worker.logLevel,
    batch: BATCH,
    warmup: WARMUP,
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

const hardLimit = setTimeout(() => {
  console.error(`benchmark still running after ${HARD_LIMIT_MS / 60_000} min: stopping everything`);
  void cleanup().finally(() => process.exit(1));
}, HARD_LIMIT_MS);
hardLimit.unref();

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error("benchmark failed:", error);
} finally {
  await cleanup();
}
process.exit(code);
