import type { RetryPolicy } from "@mailroom/core/webhooks";
import { Logger, run } from "graphile-worker";
import { graphileWorkerOptions } from "../../worker/src/runner.ts";
import { makeWebhookTasks, type WebhookTaskDeps } from "../../worker/src/tasks/webhook-deliver.ts";

/** A retry schedule in milliseconds, so retry tests take a second instead of a day. */
export const FAST_RETRIES: RetryPolicy = {
  scheduleMs: [0, 150, 300, 450],
  disableAfterMs: 60_000,
  maxRetryAfterMs: 5_000,
};

/**
 * For tests: a real graphile-worker runner with only the webhook tasks and the production runner options
 * (batched job fetch and completion), polling fast. Returns its stop.
 */
export async function startWebhookRunner(deps: WebhookTaskDeps): Promise<() => Promise<void>> {
  const tasks = makeWebhookTasks({ retryPolicy: FAST_RETRIES, ...deps });
  const runner = await run({
    pgPool: deps.pool,
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
