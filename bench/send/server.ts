/**
 * The server under test of bench/send/main.ts, forked as its own process so that its RSS and CPU are the server's
 * alone (not the orchestrator's, nor the load generator's). Three modes:
 *   - `api`: the real Mailroom API (startApiServer: first-byte gate, TLS, auth, validation, group commit),
 *     configured as `mailroom` would be from the environment, with the production log level;
 *   - `baseline`: a bare Fastify route over node:https with the same kind of certificate, one INSERT per
 *     request into a simple table, no auth, no validation, no logging;
 *   - `durable`: what a team would write with the same stack to make each email durable with its job: the
 *     same Fastify route, one transaction per request holding the INSERT and `graphile_worker.add_job`, on
 *     the database it is given (the orchestrator's stock graphile-worker install, bench/send/baselines.ts).
 * Samples its own RSS every 100 ms between `phase-start` and `phase-end` and reads the kernel's high-water
 * mark from /proc. Mailroom's modules are imported only in `api` mode, so that the baselines' RSS is that of a
 * bare Fastify process.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { loadConfig } from "@mailroom/core/config";
import Fastify from "fastify";
import pg from "pg";
import type { PhaseStats, ServerCommand, ServerJob, ServerMessage } from "./protocol.ts";

const SAMPLE_MS = 100;
const MB = 1024 * 1024;

interface Running {
  port: number;
  poolSize: number;
  logLevel: string;
  close(): Promise<void>;
}

function post(message: ServerMessage): void {
  if (!process.send) throw new Error("server.ts must be forked with an IPC channel");
  process.send(message);
}

async function startApi(job: ServerJob, tls: { cert: Buffer; key: Buffer }): Promise<Running> {
  const { startApiServer } = await import("../../api/src/index.ts");
  const { createPool } = await import("../../core/src/db/index.ts");
  const { createLogger, createApiMetrics } = await import("../../core/src/telemetry/index.ts");
  const { generateKek } = await import("../../core/src/domains/index.ts");
  // The environment may tune the API (pool size, log level, limits) as it would `mailroom run`; the database
  // and listener are the bench's. Defaults: no domain is verified in a throwaway database, so the from-domain
  // check is relaxed; rate limits stay on (their per-request cost is part of what is measured) but far above
  // what one machine can send, so they never answer 429.
  const config = loadConfig(
    { ...process.env, DATABASE_URL: job.databaseUrl, MAILROOM_API_HOST: "127.0.0.1", MAILROOM_API_PORT: "0" },
    {
      MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
      MAILROOM_RATE_LIMIT_PER_KEY: "1000000",
      MAILROOM_RATE_LIMIT_PER_ACCOUNT: "1000000",
    },
  );
  const logger = createLogger({ level: config.log.level, name: "mailroom-api" });
  const pool = createPool({
    url: job.databaseUrl,
    max: config.database.poolSize,
    applicationName: "mailroom-api",
  });
  const server = await startApiServer(
    // A throwaway key-encryption key: the bench's database holds no DKIM keys worth keeping.
    {
      config,
      pool,
      logger: logger.child({ program: "api" }),
      metrics: createApiMetrics(),
      kek: generateKek(),
    },
    tls,
  );
  return {
    port: server.port,
    poolSize: config.database.poolSize,
    logLevel: config.log.level,
    close: async () => {
      await server.close();
      await pool.end();
    },
  };
}

type BaselineBody = { to: string; subject: string; text: string };

/** A naive durable send: the row and its job in one transaction, one statement each, as the docs show it. */
async function insertWithJob(pool: pg.Pool, body: BaselineBody): Promise<string | undefined> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const { rows } = await client.query<{ id: string }>(
      "insert into bench_durable (recipient, subject, body) values ($1, $2, $3) returning id",
      [body.to, body.subject, body.text],
    );
    const id = rows[0]?.id;
    await client.query(
      "select graphile_worker.add_job('bench_deliver', json_build_object('id', $1::bigint))",
      [id],
    );
    await client.query("commit");
    return id;
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function startBaseline(
  job: ServerJob,
  tls: { cert: Buffer; key: Buffer },
  durable: boolean,
): Promise<Running> {
  // Same pool size as the API gets, so neither side wins by holding more Postgres connections.
  const poolSize = loadConfig(process.env).database.poolSize;
  const pool = new pg.Pool({
    connectionString: job.databaseUrl,
    max: poolSize,
    application_name: durable ? "bench-durable" : "bench-baseline",
  });
  const app = Fastify({ logger: false, https: { cert: tls.cert, key: tls.key, minVersion: "TLSv1.2" } });
  app.post(durable ? "/durable" : "/baseline", async (request) => {
    const body = request.body as BaselineBody;
    if (durable) return { id: await insertWithJob(pool, body) };
    const { rows } = await pool.query<{ id: string }>(
      "insert into bench_baseline (recipient, subject, body) values ($1, $2, $3) returning id",
      [body.to, body.subject, body.text],
    );
    return { id: rows[0]?.id };
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    poolSize,
    logLevel: "none",
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}

/** The kernel's peak RSS of this process so far, in bytes (0 where /proc is not there). */
function rssHighWaterMark(): number {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

function startSampler() {
  let peak: NodeJS.MemoryUsage | undefined;
  let sum = 0;
  let count = 0;
  let startedAt = performance.now();
  let cpuAtStart = process.cpuUsage();
  let gc = { count: 0, pausedMs: 0, longestMs: 0 };
  // Where a tail latency may come from inside the server: its GC pauses and how late its event loop runs.
  new PerformanceObserver((entries) => {
    for (const entry of entries.getEntries()) {
      gc.count += 1;
      gc.pausedMs += entry.duration;
      gc.longestMs = Math.max(gc.longestMs, entry.duration);
    }
  }).observe({ entryTypes: ["gc"] });
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const sample = () => {
    const usage = process.memoryUsage();
    if (usage.rss > (peak?.rss ?? 0)) peak = usage;
    sum += usage.rss;
    count += 1;
  };
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return {
    reset() {
      peak = undefined;
      sum = 0;
      count = 0;
      startedAt = performance.now();
      cpuAtStart = process.cpuUsage();
      gc = { count: 0, pausedMs: 0, longestMs: 0 };
      loopDelay.reset();
      sample();
    },
    stats(): PhaseStats {
      sample();
      const cpu = process.cpuUsage(cpuAtStart);
      return {
        seconds: (performance.now() - startedAt) / 1000,
        rssPeakMb: (peak?.rss ?? 0) / MB,
        rssMeanMb: sum / count / MB,
        rssHwmMb: rssHighWaterMark() / MB,
        cpuMs: (cpu.user + cpu.system) / 1000,
        atPeak: {
          heapTotalMb: (peak?.heapTotal ?? 0) / MB,
          heapUsedMb: (peak?.heapUsed ?? 0) / MB,
          externalMb: (peak?.external ?? 0) / MB,
        },
        gc,
        loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      };
    },
  };
}

async function main(job: ServerJob): Promise<void> {
  const tls = { cert: await readFile(job.certFile), key: await readFile(job.keyFile) };
  const running =
    job.mode === "api" ? await startApi(job, tls) : await startBaseline(job, tls, job.mode === "durable");
  const sampler = startSampler();
  // Without the orchestrator nobody would stop this server: exit with it.
  process.on("disconnect", () => process.exit(1));
  process.on("message", (command: ServerCommand) => {
    if (command.type === "phase-start") sampler.reset();
    else if (command.type === "phase-end") post({ type: "phase", stats: sampler.stats() });
    else if (command.type === "stop") void running.close().then(() => process.exit(0));
  });
  post({ type: "ready", port: running.port, poolSize: running.poolSize, logLevel: running.logLevel });
}

process.once("message", (job: ServerJob) => {
  main(job).catch((error: unknown) => {
    console.error("bench server failed:", error);
    process.exit(1);
  });
});
