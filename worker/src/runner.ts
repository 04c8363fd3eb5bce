import { CRONTAB, type LaneName, type TasksOfLane } from "@mailroom/core/jobs";
import type { Task } from "graphile-worker";
import type { WorkerDeps } from "./deps.ts";
import { startHeartbeat } from "./heartbeat.ts";
import { type Lane, startLane } from "./lane.ts";
import { startShapingPublisher } from "./shaping-publisher.ts";
import { makeDeliverTask } from "./tasks/deliver.ts";
import { makeGuardReputationTask } from "./tasks/guard-reputation.ts";
import { makeProcessReportTask } from "./tasks/process-report.ts";
import { makePurgeTask } from "./tasks/purge.ts";
import { makeRecheckDomainsTask } from "./tasks/recheck-domains.ts";
import { makeRotateDkimTask } from "./tasks/rotate-dkim.ts";
import { makeSendTlsReportsTask } from "./tasks/send-tls-reports.ts";
import { makeWebhookTasks } from "./tasks/webhook-deliver.ts";

/** Exactly the tasks core/src/jobs puts in a lane, each typed by its payload. */
type LaneTasks<Lane extends LaneName> = { [T in TasksOfLane<Lane>]: Task<T> };

export interface WorkerHandle {
  /** True while every lane's runner is running (readiness adds that the database answers). */
  isRunning(): boolean;
  stop(): Promise<void>;
}

/**
 * Starts Mailroom's two lanes on the shared pool (ADR 0012): `delivery` runs only `deliver` jobs with
 * `worker.concurrency` slots; `background` runs webhooks, their fan-out and the periodic jobs with slots of
 * its own, so no amount of webhook work (a receiver that times out, thousands of retries) takes a slot a
 * delivery needs, and a delivery backlog does not starve webhooks. Each lane's runner is kept running (see
 * `startLane`); the heartbeat beats only for runners that are up. Signals are left to the program, which stops
 * the lanes gracefully (in-flight jobs finish) on SIGTERM/SIGINT.
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
    backgroundSlots: deps.config.worker.backgroundConcurrency,
    metrics: deps.metrics,
  });
  const lanes: Lane[] = [];
  const liveIds = () => lanes.flatMap((l) => l.lockIds());
  const heartbeat = startHeartbeat(deps.pool, deps.logger, {
    intervalMs: deps.config.worker.heartbeatSeconds * 1000,
    deadAfterMs: deps.config.worker.deadAfterSeconds * 1000,
    liveIds,
  });
  // Direct delivery's shaping state, for the console's transit view (ADR 0066).
  const shaping = deps.transport.shaping
    ? startShapingPublisher(deps.pool, deps.logger, deps.transport.shaping)
    : undefined;
  const laneDeps = {
    pool: deps.pool,
    logger: deps.logger,
    pollIntervalMs: options.pollIntervalMs,
  };
  const onDead = (ids: readonly string[]) => heartbeat.release(ids);
  try {
    lanes.push(
      await startLane(
        {
          name: "delivery",
          concurrency: deps.config.worker.concurrency,
          localQueueSize: deps.config.worker.localQueueSize,
          taskList: { deliver: makeDeliverTask(deps) } satisfies LaneTasks<"delivery">,
        },
        laneDeps,
        onDead,
      ),
    );
    lanes.push(
      await startLane(
        {
          name: "background",
          concurrency: deps.config.worker.backgroundConcurrency,
          // Periodic jobs live here, not in a crontab file; their schedule is declared in core/src/jobs.
          crontab: CRONTAB,
          taskList: {
            process_report: makeProcessReportTask(deps),
            purge_expired: makePurgeTask(deps),
            recheck_domains: makeRecheckDomainsTask(deps),
            rotate_dkim: makeRotateDkimTask(deps),
            guard_reputation: makeGuardReputationTask(deps),
            send_tls_reports: makeSendTlsReportsTask(deps),
            ...webhooks.taskList,
          } satisfies LaneTasks<"background">,
        },
        laneDeps,
        onDead,
      ),
    );
  } catch (error) {
    for (const lane of lanes) await lane.stop();
    await heartbeat.stop([]);
    await shaping?.stop();
    webhooks.close();
    throw error;
  }
  return {
    isRunning: () => lanes.every((l) => l.isRunning()),
    stop: async () => {
      const ids = liveIds();
      await Promise.all(lanes.map((l) => l.stop()));
      await heartbeat.stop(ids);
      await shaping?.stop();
      webhooks.close();
      await deps.transport.close();
    },
  };
}
