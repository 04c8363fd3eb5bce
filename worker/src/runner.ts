import { EventEmitter } from "node:events";
import type { Logger as PinoLogger } from "@mailroom/core/telemetry";
import { Logger, type Runner, run, type WorkerEvents } from "graphile-worker";
import type { WorkerDeps } from "./deps.ts";
import { startHeartbeat } from "./heartbeat.ts";
import { makeDeliverTask } from "./tasks/deliver.ts";
import { makePurgeTask } from "./tasks/purge.ts";
import { makeRecheckDomainsTask } from "./tasks/recheck-domains.ts";
import { makeWebhookTasks } from "./tasks/webhook-deliver.ts";

function graphileLogger(logger: PinoLogger): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const fields = { scope, ...(meta ?? {}) };
    if (level === "error") logger.error(fields, message);
    else if (level === "warning") logger.warn(fields, message);
    else if (level === "info") logger.info(fields, message);
    else logger.debug(fields, message);
  });
}

export interface WorkerHandle {
  runner: Runner;
  stop(): Promise<void>;
}

/**
 * Starts graphile-worker on the shared pool with Mailroom's tasks. Signals are left to the program, which
 * stops the runner gracefully (in-flight deliveries finish) on SIGTERM/SIGINT.
 */
export async function startWorker(
  deps: WorkerDeps,
  options: { pollIntervalMs?: number } = {},
): Promise<WorkerHandle> {
  const webhooks = makeWebhookTasks({
    pool: deps.pool,
    retryPolicy: deps.config.webhooks.retryPolicy,
    allowedCidrs: deps.config.webhooks.allowedCidrs,
    timeoutMs: deps.config.webhooks.timeoutMs,
  });
  const heartbeat = startHeartbeat(deps.pool, deps.logger, {
    intervalMs: deps.config.worker.heartbeatSeconds * 1000,
    deadAfterMs: deps.config.worker.deadAfterSeconds * 1000,
  });
  const events: WorkerEvents = new EventEmitter();
  events.on("worker:create", ({ worker }) => heartbeat.workerIds.add(worker.workerId));
  const runner = await run({
    pgPool: deps.pool,
    events,
    concurrency: deps.config.worker.concurrency,
    noHandleSignals: true,
    pollInterval: options.pollIntervalMs ?? 2_000,
    logger: graphileLogger(deps.logger),
    // Periodic jobs live here, not in a crontab file; `?max=1` skips runs missed while no worker was up.
    crontab: ["*/5 * * * * purge_expired ?max=1", "* * * * * recheck_domains ?max=1"].join("\n"),
    taskList: {
      deliver: makeDeliverTask(deps),
      purge_expired: makePurgeTask(deps),
      recheck_domains: makeRecheckDomainsTask(deps),
      ...webhooks.taskList,
    },
  });
  return {
    runner,
    stop: async () => {
      await runner.stop();
      await heartbeat.stop();
      webhooks.close();
      await deps.transport.close();
    },
  };
}
