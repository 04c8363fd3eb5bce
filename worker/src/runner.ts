import { EventEmitter } from "node:events";
import type { Logger as PinoLogger } from "@mailroom/core/telemetry";
import { Logger, type Runner, type RunnerOptions, run, type WorkerEvents } from "graphile-worker";
import type { WorkerDeps } from "./deps.ts";
import { startHeartbeat } from "./heartbeat.ts";
import { makeDeliverTask } from "./tasks/deliver.ts";
import { makeProcessReportTask } from "./tasks/process-report.ts";
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

/**
 * The graphile-worker settings of every Mailroom worker, shared with bench/webhooks.ts so that its figure
 * describes what ships. Jobs are fetched in batches (one query locks up to `concurrency` ready jobs) and
 * completed in batches: per job, one `get_job` and one `complete_job` round trip cost the database more than
 * the delivery's own statements. A crash between a task's end and its batched completion re-runs the task,
 * which every task tolerates (a delivery re-claims and skips an email already delivered).
 */
export function graphileWorkerOptions(options: {
  concurrency: number;
  /** Fallback poll for jobs (default 2 s); new jobs are announced by LISTEN/NOTIFY. */
  pollIntervalMs?: number | undefined;
}): Pick<RunnerOptions, "concurrency" | "pollInterval" | "preset"> {
  return {
    concurrency: options.concurrency,
    pollInterval: options.pollIntervalMs ?? 2_000,
    preset: {
      worker: {
        localQueue: { size: options.concurrency },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
  };
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
  // With a local queue the pool itself locks the jobs it fetches ahead: it beats too, so a dead process's
  // prefetched jobs are unlocked like its running ones.
  events.on("pool:create", ({ workerPool }) => heartbeat.workerIds.add(workerPool.id));
  const runner = await run({
    pgPool: deps.pool,
    events,
    ...graphileWorkerOptions({
      concurrency: deps.config.worker.concurrency,
      pollIntervalMs: options.pollIntervalMs,
    }),
    noHandleSignals: true,
    logger: graphileLogger(deps.logger),
    // Periodic jobs live here, not in a crontab file; `?max=1` skips runs missed while no worker was up.
    crontab: ["*/5 * * * * purge_expired ?max=1", "* * * * * recheck_domains ?max=1"].join("\n"),
    taskList: {
      deliver: makeDeliverTask(deps),
      process_report: makeProcessReportTask(deps),
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
