import { randomBytes } from "node:crypto";
import type { Pool } from "@mailroom/core/db";
import { createEndpoint, createSsrfGuard, type RetryPolicy } from "@mailroom/core/webhooks";
import { Logger, run } from "graphile-worker";
import { afterAll, afterEach, beforeAll } from "vitest";
import { graphileWorkerOptions } from "../../worker/src/graphile-settings.ts";
import { makeWebhookTasks, type WebhookTaskDeps } from "../../worker/src/tasks/webhook-deliver.ts";
import { createTestDatabase, type TestDatabase } from "./db.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

/** A retry schedule in milliseconds, so retry tests take a second instead of a day. */
export const FAST_RETRIES: RetryPolicy = {
  scheduleMs: [0, 150, 300, 450],
  disableAfterMs: 60_000,
  maxRetryAfterMs: 5_000,
};

const LOOPBACK = ["127.0.0.0/8"];

/**
 * An endpoint of a fresh account at `url` (default the receiver's /hook), loopback allowed, whose secret the
 * receiver verifies with.
 */
export async function createReceiverEndpoint(
  db: TestDatabase,
  receiver: WebhookReceiver,
  options: { url?: string; events?: string[] } = {},
) {
  const account = `a-${randomBytes(4).toString("hex")}`;
  const created = await createEndpoint(
    db.pool,
    { account, url: options.url ?? `${receiver.origin}/hook`, events: options.events ?? [] },
    { ssrf: createSsrfGuard({ allowedCidrs: LOOPBACK }) },
  );
  receiver.setSecrets(created.secret);
  return { account, ...created };
}

/**
 * For tests: a real graphile-worker runner with only the webhook tasks and the production runner options
 * (batched job fetch and completion), polling fast. The tasks use `deps.pool`; the runner itself uses
 * `runnerPool` (default the same), so a test can watch the tasks' statements alone. Returns its stop.
 */
export async function startWebhookRunner(
  deps: WebhookTaskDeps,
  runnerPool: Pool = deps.pool,
): Promise<() => Promise<void>> {
  const tasks = makeWebhookTasks({ retryPolicy: FAST_RETRIES, ...deps });
  const runner = await run({
    pgPool: runnerPool,
    ...graphileWorkerOptions({ concurrency: 4, pollIntervalMs: 20 }),
    noHandleSignals: true,
    crontab: "",
    logger: new Logger(() => () => {}),
    taskList: tasks.taskList,
  });
  return async () => {
    await runner.stop();
    tasks.close();
  };
}

export interface WebhookWorkerSetup {
  db: TestDatabase;
  /**
   * A fresh receiver and a runner with the webhook tasks on the file's database (loopback allowed, the tasks
   * on `deps.pool` when given), replacing those the test started before; both stop after the test.
   */
  start(deps?: Partial<WebhookTaskDeps>): Promise<WebhookReceiver>;
}

/**
 * For a webhook worker test file: one database for the file, handed to `use` before the first test. After
 * each test its runner stops, its receiver closes and leftover jobs go: a retry of one test must not run under
 * the next test's worker.
 */
export function useWebhookWorker(use: (setup: WebhookWorkerSetup) => void): void {
  let db: TestDatabase | undefined;
  let receiver: WebhookReceiver | undefined;
  let stop: (() => Promise<void>) | undefined;
  const stopBoth = async () => {
    await stop?.();
    stop = undefined;
    await receiver?.close();
    receiver = undefined;
  };
  beforeAll(async () => {
    const database = await createTestDatabase();
    db = database;
    use({
      db: database,
      start: async (deps = {}) => {
        await stopBoth();
        receiver = await startWebhookReceiver();
        stop = await startWebhookRunner(
          { pool: database.pool, allowedCidrs: LOOPBACK, ...deps },
          database.pool,
        );
        return receiver;
      },
    });
  });
  afterEach(async () => {
    await stopBoth();
    await db?.pool.query("delete from graphile_worker._private_jobs");
  });
  afterAll(async () => {
    await db?.drop();
  });
}
