import type { Config } from "@mailroom/core/config";
import { createPool, endPool, type Pool } from "@mailroom/core/db";
import {
  CRONTAB,
  type LaneName,
  RESERVED_DELIVERY_LANE,
  type TasksOfLane,
  withinShareAnnounced,
} from "@mailroom/core/jobs";
import type { Task } from "graphile-worker";
import type { WorkerDeps } from "./deps.ts";
import { startHeartbeat } from "./heartbeat.ts";
import { type Lane, startLane } from "./lane.ts";
import { startReservedLane } from "./reserved-lane/index.ts";
import { type ReservedRescue, startReservedRescue } from "./reserved-rescue.ts";
import { startShapingPublisher } from "./shaping-publisher.ts";
import { deliverTask, makeDelivery } from "./tasks/deliver.ts";
import { makeGuardReputationTask } from "./tasks/guard-reputation.ts";
import { makeProcessReportTask } from "./tasks/process-report.ts";
import { makePurgeTask } from "./tasks/purge.ts";
import { makeRecheckDomainsTask } from "./tasks/recheck-domains.ts";
import { makeRotateDkimTask } from "./tasks/rotate-dkim.ts";
import { makeSendTlsReportsTask } from "./tasks/send-tls-reports.ts";
import { makeWebhookTasks } from "./tasks/webhook-deliver.ts";

/** Exactly the tasks core/src/jobs puts in a lane, each typed by its payload. */
type LaneTasks<Lane extends LaneName> = { [T in TasksOfLane<Lane>]: Task<T> };
type WorkerLane = Config["worker"]["lanes"][number];

export interface WorkerHandle {
  /** True while every lane's runner is running (readiness adds that the database answers). */
  isRunning(): boolean;
  stop(): Promise<void>;
}

/**
 * Starts Mailroom's lanes (ADR 0012), their tasks on the shared pool: `delivery` runs only `deliver` jobs
 * with `worker.concurrency` slots; `background` runs webhooks, their fan-out and the periodic jobs with slots
 * of its own, so no amount of webhook work (a receiver that times out, thousands of retries) takes a slot a
 * delivery needs, and a delivery backlog does not starve webhooks. `reserved` (unless its concurrency is 0)
 * runs only the `deliver` jobs added within their account's fair share, with `worker.reservedConcurrency`
 * slots and no local queue: a flood holding every delivery slot, and the jobs its lane fetched ahead, cannot
 * make a quiet account's email wait for them (ADR 0064). A process runs the lanes `worker.lanes` lists (all
 * by default; the chart runs `reserved` in a process of its own, whose deliveries then share no event loop
 * with a flood's). Each lane's runner is kept running (see
 * `startLane`); the heartbeat beats only for runners that are up. Signals are left to the program, which stops
 * the lanes gracefully (in-flight jobs finish) on SIGTERM/SIGINT.
 */
export async function startWorker(
  deps: WorkerDeps,
  /**
   * For tests: `reservedRescueAfterMs` replaces `RESERVED_DELIVERY_LANE.rescueAfterMs`; `periodicJobs: false`
   * schedules none of `PERIODIC_JOBS` (a test whose data is older than the purge job's retention).
   */
  options: { pollIntervalMs?: number; reservedRescueAfterMs?: number; periodicJobs?: boolean } = {},
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
    // Only a running reserved runner's ids: while they beat, jobs within their share are this lane's (ADR 0074).
    reservedIds: () =>
      lanes
        .filter((l) => l.name === RESERVED_DELIVERY_LANE.name && l.isRunning())
        .flatMap((l) => l.lockIds()),
  });
  const runs = (lane: WorkerLane) => deps.config.worker.lanes.includes(lane);
  // Direct delivery's shaping state, for the console's transit view (ADR 0066): from every process that delivers.
  const shaping =
    deps.transport.shaping && (runs("delivery") || runs("reserved"))
      ? startShapingPublisher(deps.pool, deps.logger, deps.transport.shaping)
      : undefined;
  const laneDeps = {
    pool: deps.pool,
    logger: deps.logger,
    pollIntervalMs: options.pollIntervalMs,
  };
  const onDead = (ids: readonly string[]) => heartbeat.release(ids);
  // One task for both delivery lanes: concurrent deliveries share their claim and record statements.
  const delivery = makeDelivery(deps);
  const deliveries = { deliver: deliverTask(delivery) } satisfies LaneTasks<"delivery">;
  let reservedPool: Pool | undefined;
  // The delivery lane hands itself the reserved lane's jobs that lane leaves waiting (ADR 0074).
  let rescue: ReservedRescue | undefined;
  try {
    if (runs("delivery")) {
      const handOver = startReservedRescue(deps.pool, deps.logger, {
        afterMs: options.reservedRescueAfterMs ?? RESERVED_DELIVERY_LANE.rescueAfterMs,
        intervalMs: deps.config.worker.heartbeatSeconds * 1000,
      });
      rescue = handOver;
      lanes.push(
        await startLane(
          {
            name: "delivery",
            concurrency: deps.config.worker.concurrency,
            localQueueSize: deps.config.worker.localQueueSize,
            taskList: deliveries,
            onNotification: (payload) => {
              if (withinShareAnnounced(payload) > 0) handOver.announced();
            },
          },
          laneDeps,
          onDead,
        ),
      );
    }
    // In `lanes` only with slots (core/src/config). A process without it leaves nothing stranded: with no
    // reserved lane alive every job is `deliver`, which the delivery lane runs.
    if (runs("reserved")) {
      reservedPool = openReservedPool(deps.pool, deps.config.worker.reservedConcurrency, deps.logger);
      // Its own loop, not a graphile-worker runner: one round trip takes a job and claims its email (ADR 0075).
      lanes.push(
        await startReservedLane({
          pool: reservedPool,
          logger: deps.logger,
          slots: deps.config.worker.reservedConcurrency,
          delivery,
          pollIntervalMs: options.pollIntervalMs,
        }),
      );
    }
    if (runs("background")) {
      lanes.push(
        await startLane(
          {
            name: "background",
            concurrency: deps.config.worker.backgroundConcurrency,
            // Periodic jobs live here, not in a crontab file; their schedule is declared in core/src/jobs.
            ...(options.periodicJobs === false ? {} : { crontab: CRONTAB }),
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
    }
    heartbeat.beatNow();
  } catch (error) {
    for (const lane of lanes) await lane.stop();
    await rescue?.stop();
    await heartbeat.stop([]);
    await shaping?.stop();
    webhooks.close();
    if (reservedPool) await endPool(reservedPool);
    throw error;
  }
  return {
    isRunning: () => lanes.every((l) => l.isRunning()),
    stop: async () => {
      const ids = liveIds();
      await Promise.all(lanes.map((l) => l.stop()));
      await rescue?.stop();
      await heartbeat.stop(ids);
      await shaping?.stop();
      webhooks.close();
      if (reservedPool) await endPool(reservedPool);
      await deps.transport.close();
    },
  };
}

/**
 * The reserved lane's own connections, for its takes, its completions and its listening connection (its
 * deliveries use the worker's pool), so that none of them waits behind the flood's statements for a connection.
 */
function openReservedPool(pool: Pool, slots: number, logger: WorkerDeps["logger"]): Pool {
  return createPool({
    url: pool.options.connectionString ?? "",
    max: slots + 2,
    applicationName: "mailroom-worker-reserved",
    onError: (error) => logger.warn({ err: error }, "reserved lane: idle client error"),
  });
}
