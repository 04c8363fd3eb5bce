import { EventEmitter } from "node:events";
import type { Pool } from "@mailroom/core/db";
import type { Logger as PinoLogger } from "@mailroom/core/telemetry";
import {
  Logger,
  type Runner,
  type RunnerOptions,
  run,
  type TaskList,
  type WorkerEvents,
} from "graphile-worker";

/** One runner's share of the work: its own tasks and its own job slots (ADR 0012). */
export interface LaneSpec {
  name: string;
  taskList: TaskList;
  concurrency: number;
  crontab?: string;
}

export interface Lane {
  readonly name: string;
  /** True while its runner is up; false from the moment it stops until a new one runs. */
  isRunning(): boolean;
  /** Ids its live runner locks jobs under (its workers' and, with a local queue, its pool's). */
  lockIds(): readonly string[];
  stop(): Promise<void>;
}

/**
 * The graphile-worker settings of every Mailroom runner, shared with bench/webhooks.ts so that its figure
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

/**
 * Waits before the n-th restart of a runner (1-based): 0.5 s doubling up to 4 s, so a worker is back at most
 * a few seconds after its database, and one attempt costs a refused connection.
 */
function restartDelayMs(restart: number): number {
  return Math.min(4_000, 500 * 2 ** Math.max(0, restart - 1));
}

/**
 * Runs one lane's graphile-worker runner and keeps it running. graphile-worker ends a runner for good on some
 * database errors: a batch of completions it cannot write ("queue is in an inconsistent state") shuts the
 * pool down, and returning its prefetched jobs then fails too and rejects the runner's promise. Nothing in
 * graphile-worker starts it again, so a process that outlived the outage sat idle with its jobs locked
 * (issue 15). Here the end of a runner is seen at once: its lock ids are handed to `onDead` (the heartbeat
 * stops beating for them and unlocks their jobs as soon as the database answers) and a new runner starts,
 * retrying with backoff while the database is still away.
 */
export async function startLane(
  spec: LaneSpec,
  deps: {
    pool: Pool;
    logger: PinoLogger;
    pollIntervalMs?: number | undefined;
    /** Longest wait for an ended runner to settle before its jobs are released anyway. */
    releaseGraceMs: number;
  },
  onDead: (lockIds: readonly string[]) => void,
): Promise<Lane> {
  let runner: Runner | undefined;
  let ids: string[] = [];
  let stopping = false;
  let restarts = 0;
  let retry: NodeJS.Timeout | undefined;
  const log = deps.logger.child({ lane: spec.name });

  const launch = async (): Promise<Runner> => {
    const events: WorkerEvents = new EventEmitter();
    const mine: string[] = [];
    let started: Runner | undefined;
    events.on("worker:create", ({ worker }) => mine.push(worker.workerId));
    // With a local queue the pool itself locks the jobs it fetches ahead: they are released like its workers'.
    events.on("pool:create", ({ workerPool }) => mine.push(workerPool.id));
    // A pool that shuts down without being asked to (a completion or failure it could not write) takes no job
    // again, though its runner's promise may take long to settle, or never: the lane moves on at once.
    events.on("pool:gracefulShutdown", ({ message }) => {
      if (started) ended(started, mine, new Error(`graphile-worker pool shutting down: ${message}`));
    });
    started = await run({
      pgPool: deps.pool,
      events,
      ...graphileWorkerOptions({ concurrency: spec.concurrency, pollIntervalMs: deps.pollIntervalMs }),
      noHandleSignals: true,
      logger: graphileLogger(log),
      crontab: spec.crontab ?? "",
      taskList: spec.taskList,
    });
    const current = started;
    ids = mine;
    current.promise.then(
      () => ended(current, mine, undefined),
      (error: unknown) => ended(current, mine, error),
    );
    return current;
  };

  const ended = (which: Runner, lockIds: string[], error: unknown) => {
    if (which !== runner || stopping) return;
    runner = undefined;
    ids = [];
    log.error({ err: error }, `the ${spec.name} runner stopped on its own; starting a new one`);
    // Its jobs are released once it has settled (what it still runs finishes first), or after the grace.
    const settled = which.promise.then(
      () => {},
      () => {},
    );
    const grace = new Promise((resolve) => setTimeout(resolve, deps.releaseGraceMs).unref());
    void Promise.race([settled, grace]).then(() => onDead(lockIds));
    scheduleStart();
  };

  const scheduleStart = () => {
    restarts += 1;
    retry = setTimeout(() => {
      retry = undefined;
      launch().then(
        (started) => {
          if (stopping) {
            void started.stop().catch(() => {});
            return;
          }
          runner = started;
          log.warn(`the ${spec.name} runner is running again`);
          restarts = 0;
        },
        (error: unknown) => {
          if (stopping) return;
          log.warn({ err: error }, `could not start the ${spec.name} runner yet; retrying`);
          scheduleStart();
        },
      );
    }, restartDelayMs(restarts));
  };

  runner = await launch();
  return {
    name: spec.name,
    isRunning: () => runner !== undefined,
    lockIds: () => ids,
    stop: async () => {
      stopping = true;
      clearTimeout(retry);
      const current = runner;
      runner = undefined;
      await current?.stop();
    },
  };
}

function graphileLogger(logger: PinoLogger): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const fields = { scope, ...(meta ?? {}) };
    if (level === "error") logger.error(fields, message);
    else if (level === "warning") logger.warn(fields, message);
    else if (level === "info") logger.info(fields, message);
    else logger.debug(fields, message);
  });
}
