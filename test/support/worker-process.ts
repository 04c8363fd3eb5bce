// A worker in a process of its own, for tests that must kill one mid-delivery. Configured by environment
// (DATABASE_URL, MAILROOM_SMTP_URL, …); prints "ready" once it is taking jobs.
import { deriveVerpKey } from "../../core/src/bounces/index.ts";
import { loadConfig } from "../../core/src/config/index.ts";
import { createPool } from "../../core/src/db/index.ts";
import { createLogger, createWorkerMetrics } from "../../core/src/telemetry/index.ts";
import { createSigner, createTransport, startWorker } from "../../worker/src/index.ts";
import { TEST_KEK } from "./stack.ts";

const config = loadConfig(process.env);
const pool = createPool({ url: config.database.url ?? "", max: 10, applicationName: "mailroom-test-worker" });
await startWorker(
  {
    config,
    pool,
    logger: createLogger({ level: "silent", name: "test-worker-process" }),
    metrics: createWorkerMetrics(),
    transport: createTransport(config),
    signer: createSigner(pool, TEST_KEK),
    verpKey: deriveVerpKey(TEST_KEK),
  },
  { pollIntervalMs: 200 },
);
process.stdout.write("ready\n");
