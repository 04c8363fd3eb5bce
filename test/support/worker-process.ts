// A worker in a process of its own, for tests that must kill one mid-delivery. Configured by environment
// (DATABASE_URL, MAILROOM_SMTP_URL, …); prints "ready" once it is taking jobs.
import { deriveVerpKey } from "@mailroom/core/bounces";
import { loadConfig } from "@mailroom/core/config";
import { createPool } from "@mailroom/core/db";
import { createLogger, createWorkerMetrics } from "@mailroom/core/telemetry";
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
    kek: TEST_KEK,
  },
  { pollIntervalMs: 200 },
);
process.stdout.write("ready\n");
