/**
 * The Mailroom worker under test of bench/delivery/main.ts, forked as its own process (its CPU is its own; a CPU
 * profile can be taken of it alone): `startWorker` with `createTransport` (relay mode to the sink) and
 * `createSigner` over the bench's key-encryption key, set up as `mailroom worker` does it (the same pool
 * sizing rule, the production poll interval, the log level of the environment, to stdout). MAILROOM_*
 * variables tune it as they would the real program (e.g. MAILROOM_WORKER_CONCURRENCY).
 */
import { readFileSync } from "node:fs";
import { deriveVerpKey } from "@mailroom/core/bounces";
import { loadConfig } from "@mailroom/core/config";
import { createPool } from "@mailroom/core/db";
import { createLogger, createWorkerMetrics } from "@mailroom/core/telemetry";
import { createSigner, createTransport, signingPlaceFor, startWorker } from "../../worker/src/index.ts";
import { recordDeliverSpans } from "../shared/span-recorder.ts";
import type { WorkerCommand, WorkerJob, WorkerMessage } from "./protocol.ts";

const MB = 1024 * 1024;
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU ms of the main (JavaScript) thread alone, from /proc: the rest of the process's CPU is libuv's thread
 * pool (the RSA signatures) and V8's helper threads. A CPU profile samples the main thread only.
 */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return Number.NaN;
  }
}

function post(message: WorkerMessage): void {
  if (!process.send) throw new Error("worker.ts must be forked with an IPC channel");
  process.send(message);
}

async function main(job: WorkerJob): Promise<void> {
  // bench/fairness's step timings of the quiet tenant's deliveries (off unless BENCH_TRACE_FILE is set).
  recordDeliverSpans(process.env);
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: job.databaseUrl,
    MAILROOM_SMTP_URL: job.smtpUrl,
    MAILROOM_DELIVERY_MODE: "relay",
  });
  const logger = createLogger({ level: config.log.level, name: "mailroom" }).child({ program: "worker" });
  // As cli/src/programs.ts sizes it: each concurrent job holds a client while it records its outcome.
  const poolSize = Math.max(config.database.poolSize, config.worker.slots + 4);
  const pool = createPool({ url: job.databaseUrl, max: poolSize, applicationName: "mailroom-worker" });
  const worker = await startWorker({
    config,
    pool,
    logger,
    metrics: createWorkerMetrics(),
    transport: createTransport(config),
    signer: createSigner(
      pool,
      Buffer.from(job.kek, "base64"),
      undefined,
      signingPlaceFor(config.worker.lanes),
    ),
    verpKey: deriveVerpKey(Buffer.from(job.kek, "base64")),
    kek: Buffer.from(job.kek, "base64"),
  });
  let cpuAtStart = process.cpuUsage();
  let mainAtStart = mainThreadCpuMs();
  let rssPeak = 0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 100);
  sampler.unref();
  process.on("message", (command: WorkerCommand) => {
    if (command.type === "phase-start") {
      cpuAtStart = process.cpuUsage();
      mainAtStart = mainThreadCpuMs();
      rssPeak = process.memoryUsage.rss();
    } else if (command.type === "phase-end") {
      const cpu = process.cpuUsage(cpuAtStart);
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
      post({
        type: "phase",
        cpuMs: (cpu.user + cpu.system) / 1000,
        mainThreadCpuMs: mainThreadCpuMs() - mainAtStart,
        rssPeakMb: rssPeak / MB,
      });
    } else if (command.type === "stop") {
      // A graceful stop (in-flight jobs finish), then exit: a --cpu-prof profile is written on exit.
      void worker
        .stop()
        .then(() => pool.end())
        .finally(() => process.exit(0));
    }
  });
  post({
    type: "ready",
    concurrency: config.worker.concurrency,
    lanes: config.worker.lanes,
    poolSize,
    logLevel: config.log.level,
  });
}

process.on("disconnect", () => process.exit(1));
process.once("message", (job: WorkerJob) => {
  main(job).catch((error: unknown) => {
    console.error("bench worker failed:", error);
    process.exit(1);
  });
});
