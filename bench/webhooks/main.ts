/**
 * Signed webhook deliveries per second to a local receiver (target ≥ 1,000/s), against the HMAC signing rate
 * measured in the same run as the ceiling. Three figures:
 *   1. signing: Standard Webhooks signatures/s of a typical event body (the CPU ceiling of one core);
 *   2. sign + POST: the delivery hot path (core's signer and HTTP client) to a receiver in another thread;
 *   3. end to end: outbox events → graphile-worker fan-out → signed delivery → rows recorded, on Postgres.
 * Loopback only, bounded in count and time. Run: `npx node bench/webhooks/main.ts` (DATABASE_URL to reuse a
 * server, else a throwaway embedded Postgres). The worker runs with the production graphile-worker settings
 * (`graphileWorkerOptions`) and MAILROOM_* variables tune it as they would the real program (e.g.
 * MAILROOM_WORKER_CONCURRENCY). Prints a markdown table.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { loadConfig } from "@mailroom/core/config";
import { createPool, migrate, startEmbeddedPostgres, withTransaction } from "@mailroom/core/db";
import {
  createEndpoint,
  createSsrfGuard,
  createWebhookHttpClient,
  createWebhookSigner,
  emitEvents,
  generateWebhookSecret,
  webhookBody,
} from "@mailroom/core/webhooks";
import { Logger, run } from "graphile-worker";
import { freePort } from "../../test/support/ports.ts";
import { graphileWorkerOptions } from "../../worker/src/graphile-settings.ts";
import { makeWebhookTasks } from "../../worker/src/tasks/webhook-deliver.ts";
import { writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { exitIfHelp } from "../shared/lifecycle.ts";

const SIGN_COUNT = 200_000;
const POST_COUNT = 20_000;
const PIPELINE_COUNT = 5_000;
const CONCURRENCY = 64;
await exitIfHelp();
// The worker is configured as `mailroom worker` would be from this environment.
const CONFIG = loadConfig(process.env);
// Jobs at once; each sends to up to 16 streams side by side.
const WORKER_CONCURRENCY = CONFIG.worker.concurrency;
const TIME_LIMIT_MS = 60_000;

// The receiver runs in its own thread (own event loop), verifies 1 request in 100 with the reference library
// and fails the run if any of those does not verify.
const RECEIVER = `
const { createServer } = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const { Webhook } = require(workerData.standardwebhooks);
const verifier = new Webhook(workerData.secret);
let count = 0, bad = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    if (count++ % 100 === 0) {
      try { verifier.verify(Buffer.concat(chunks).toString(), req.headers); } catch { bad++; }
    }
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (m) => { if (m === "stats") parentPort.postMessage({ count, bad }); else server.close(() => process.exit(0)), server.closeAllConnections(); });
`;

interface Receiver {
  origin: string;
  stats(): Promise<{ count: number; bad: number }>;
  close(): Promise<void>;
}

async function startReceiver(secret: string): Promise<Receiver> {
  const worker = new Worker(RECEIVER, {
    eval: true,
    workerData: { secret, standardwebhooks: import.meta.resolve("standardwebhooks").replace("file://", "") },
  });
  const { port } = await new Promise<{ port: number }>((resolve) => worker.once("message", resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    stats: () =>
      new Promise((resolve) => {
        worker.once("message", resolve);
        worker.postMessage("stats");
      }),
    close: async () => {
      worker.postMessage("close");
      await new Promise((resolve) => worker.once("exit", resolve));
    },
  };
}

const sampleEvent = (i: number) => ({
  type: "email.delivered",
  createdAt: new Date(),
  data: {
    emailId: `0190c0de-0000-7000-8000-${String(i).padStart(12, "0")}`,
    from: "Acme <noreply@acme.example>",
    to: ["someone@example.com"],
    subject: "Your receipt #12345",
    tags: { category: "receipts" },
  },
});

function benchSigning(secret: string): { count: number; seconds: number } {
  const signer = createWebhookSigner([secret]);
  const body = webhookBody(sampleEvent(1));
  const started = performance.now();
  let count = 0;
  while (count < SIGN_COUNT && performance.now() - started < TIME_LIMIT_MS) {
    signer.sign(`evt-${count}`, new Date(), body);
    count++;
  }
  return { count, seconds: (performance.now() - started) / 1000 };
}

async function benchPosting(secret: string, receiver: Receiver): Promise<{ count: number; seconds: number }> {
  const guard = createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] });
  const target = await guard.resolveTarget(`${receiver.origin}/hook`);
  const http = createWebhookHttpClient({ maxSockets: CONCURRENCY });
  const signer = createWebhookSigner([secret]);
  let next = 0;
  let failures = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < POST_COUNT && performance.now() - started < TIME_LIMIT_MS) {
      const i = next++;
      const body = webhookBody(sampleEvent(i));
      const result = await http.post(target, { ...signer.sign(`evt-${i}`, new Date(), body) }, body);
      if (result.statusCode !== 204) failures++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const seconds = (performance.now() - started) / 1000;
  http.close();
  if (failures > 0) throw new Error(`${failures} deliveries failed`);
  return { count: next, seconds };
}

async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  if (process.env.DATABASE_URL) return fn(process.env.DATABASE_URL);
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-pg-"));
  // Under root, Postgres runs as its own system user, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const pg = await startEmbeddedPostgres({
    databaseDir: path.join(dir, "data"),
    port: await freePort(),
    persistent: false,
  });
  try {
    const name = `bench_${randomBytes(4).toString("hex")}`;
    await pg.createDatabase(name);
    return await fn(pg.urlFor(name));
  } finally {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function benchPipeline(url: string, receiver: Receiver, secret: string) {
  const receivedBefore = (await receiver.stats()).count;
  await migrate({ url });
  // The API and the worker are separate programs with separate pools; so are the emitter and the worker here.
  // The worker's pool is sized as `mailroom worker` sizes it (cli/src/programs.ts).
  const pool = createPool({
    url,
    max: Math.max(CONFIG.database.poolSize, WORKER_CONCURRENCY + 4),
    applicationName: "mailroom-bench-worker",
  });
  const api = createPool({ url, max: 4, applicationName: "mailroom-bench-api" });
  const account = `bench-${randomBytes(3).toString("hex")}`;
  const { endpoint } = await createEndpoint(
    pool,
    { account, url: `${receiver.origin}/hook`, secret },
    { ssrf: createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] }) },
  );
  const tasks = makeWebhookTasks({
    pool,
    retryPolicy: CONFIG.webhooks.retryPolicy,
    allowedCidrs: ["127.0.0.0/8"],
    timeoutMs: CONFIG.webhooks.timeoutMs,
  });
  const runner = await run({
    pgPool: pool,
    ...graphileWorkerOptions({ concurrency: WORKER_CONCURRENCY }),
    noHandleSignals: true,
    crontab: "",
    logger: new Logger(() => () => {}),
    taskList: tasks.taskList,
  });
  const started = performance.now();
  // Emitted as the email pipeline would: 50 transitions per transaction, each email its own stream.
  for (let i = 0; i < PIPELINE_COUNT; i += 50) {
    await withTransaction(api, (client) =>
      emitEvents(
        client,
        Array.from({ length: 50 }, (_, j) => ({
          account,
          type: "email.delivered",
          data: sampleEvent(i + j).data,
        })),
      ),
    );
  }
  const emitSeconds = (performance.now() - started) / 1000;
  // Wait for the receiver first (a message to its thread), then for the rows: counting the endpoint's
  // deliveries every 20 ms while they are sent would itself load the database whose throughput is measured.
  while (performance.now() - started < TIME_LIMIT_MS) {
    if ((await receiver.stats()).count - receivedBefore >= PIPELINE_COUNT) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let done = 0;
  while (performance.now() - started < TIME_LIMIT_MS) {
    const { rows } = await pool.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries where endpoint_id = $1 and state = 'succeeded'`,
      [endpoint.id],
    );
    done = rows[0]?.n ?? 0;
    if (done >= PIPELINE_COUNT) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  tasks.close();
  await pool.end();
  await api.end();
  return { count: done, seconds, emitSeconds };
}

const secret = generateWebhookSecret();
const receiver = await startReceiver(secret);
try {
  const signing = benchSigning(secret);
  const posting = await benchPosting(secret, receiver);
  const pipeline = await withDatabase((url) => benchPipeline(url, receiver, secret));
  const stats = await receiver.stats();
  if (stats.bad > 0) throw new Error(`${stats.bad} sampled requests failed standardwebhooks verification`);
  const rate = (r: { count: number; seconds: number }) =>
    Math.round(r.count / r.seconds).toLocaleString("en-US");
  const row = (name: string, r: { count: number; seconds: number }, note: string) =>
    `| ${name} | ${r.count.toLocaleString("en-US")} | ${r.seconds.toFixed(2)} | ${rate(r)} | ${note} |`;
  const report = [
    `Run ${new Date().toISOString()} with \`make bench\` (\`npx node bench/webhooks/main.ts\`) on ${os.cpus().length} CPUs, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}; receiver on 127.0.0.1 in another thread.`,
    "",
    "| measure | count | seconds | per second | notes |",
    "|---|---:|---:|---:|---|",
    row("HMAC-SHA256 signing (ceiling)", signing, "one secret, ~250-byte body, one core"),
    row("sign + POST (hot path)", posting, `${CONCURRENCY} concurrent, keep-alive`),
    row(
      "outbox → worker → receiver",
      pipeline,
      `graphile-worker ×${WORKER_CONCURRENCY} jobs × 16 streams (production options), rows + attempts recorded; events emitted in ${pipeline.emitSeconds.toFixed(2)} s`,
    ),
    "",
    `Receiver: ${stats.count.toLocaleString("en-US")} requests, ${Math.ceil(stats.count / 100)} sampled and verified with standardwebhooks, 0 failures. Target ≥ 1,000 deliveries/s, with HMAC signing as the ceiling.`,
  ].join("\n");
  process.stdout.write(`${report}\n`);
  await writeBenchmarkSection("## Webhooks (make bench)", report);
} finally {
  await receiver.close();
}
