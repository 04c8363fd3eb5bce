import { EventEmitter } from "node:events";
import type { Pool } from "@mailroom/core/db";
import type { Logger as PinoLogger } from "@mailroom/core/telemetry";
import { type Runner, run, type TaskList, type WorkerEvents } from "graphile-worker";
import { graphileLogger, graphileWorkerOptions } from "./graphile-settings.ts";

/** One runner's share of the work: its own tasks and its own job slots (ADR 0012). */
export interface LaneSpec {
  name: string;
  taskList: TaskList;
  concurrency: number;
  /** Jobs fetched ahead into the local queue (default: `concurrency`). */
  localQueueSize?: number;
  /** Told every `jobs:insert` notification the lane's runner hears (the delivery lane's rescue, ADR 0074). */
  onNotification?: (payload: string | undefined) => void;
  crontab?: string;
}

export interface Lane {
  readonly name: string;
  /** True while its runner is up; false from the moment it stops until a new one runs. */
  isRunning(): boolean;
  /**
   * Ids to beat for: those its live runner locks jobs under (its workers' and, with a local queue, its
   * pool's), and those of an ended runner's workers still running a job.
   */
  lockIds(): readonly string[];
  stop(): Promise<void>;
}

/** Longest an ended runner's busy worker keeps its job locked (every task is bounded well below this). */
const BUSY_RELEASE_CAP_MS = 5 * 60_000;

/**
 * Waits before the n-th restart of a runner (1-based): 0.5 s doubling up to 4 s, so a worker is back at most
 * a few seconds after its database, and one attempt costs a refused connection.
 */
function restartDelayMs(restart: number): number {
  return Math.min(4_000, 500 * 2 ** Math.max(0, restart - 1));
}

let localQueueGuardInstalled = false;
const LOCAL_QUEUE_RETURN_FAILURE = "Error occurred whilst returning jobs from local queue to database queue";

/**
 * graphile-worker 0.17 can reject a promise nobody handles when a pool is released while its local queue holds
 * prefetched jobs and the database is away: `setModeReleased` switches to RELEASED before `returnJobs` hands
 * its attempt to `background`, which then throws ("Cannot background something when the queue is already
 * released") and leaves the attempt's rejection ("Error occurred whilst returning jobs from local queue to
 * database queue: connect ECONNREFUSED") unhandled: Node ends the process (issue 15: one worker exited this
 * way). The lane has already replaced that runner and releases the pool's locks through the heartbeat, so
 * that one rejection is logged; every other unhandled rejection still ends the process as Node would.
 */
function tolerateLocalQueueReturnFailure(logger: PinoLogger): void {
  if (localQueueGuardInstalled) return;
  localQueueGuardInstalled = true;
  process.on("unhandledRejection", (reason) => {
    if (reason instanceof Error && reason.message.startsWith(LOCAL_QUEUE_RETURN_FAILURE)) {
      logger.warn(
        { err: reason },
        "graphile-worker could not return prefetched jobs; the heartbeat releases them",
      );
      return;
    }
    throw reason;
  });
}

/**
 * Runs one lane's graphile-worker runner and keeps it running. graphile-worker ends a runner for good on some
 * database errors: a batch of completions it cannot write ("queue is in an inconsistent state") shuts the
 * pool down, and returning its prefetched jobs then fails too and rejects the runner's promise. Nothing in
 * graphile-worker starts it again, so a process that outlived the outage sat idle with its jobs locked
 * (issue 15). Here the end of a runner is seen at once and a new runner starts, retrying with backoff while
 * the database is still away. The ended runner's lock ids go to `onDead` (the heartbeat unlocks their jobs
 * as soon as the database answers), each worker's only once the job it is running has ended: a delivery
 * waiting to record what the receiver answered must record it before anyone may take its job again, or the
 * email is sent twice. (Tasks are bounded; `BUSY_RELEASE_CAP_MS` guards against one that is not.) A runner
 * whose fetch of jobs failed is replaced too, and its ids released once it has stopped gracefully: the fetch
 * may have locked jobs whose answer was lost (ADR 0078).
 */
export async function startLane(
  spec: LaneSpec,
  deps: {
    pool: Pool;
    logger: PinoLogger;
    pollIntervalMs?: number | undefined;
  },
  onDead: (lockIds: readonly string[]) => void,
): Promise<Lane> {
  let runner: Runner | undefined;
  let ids: string[] = [];
  let stopping = false;
  let restarts = 0;
  let retry: NodeJS.Timeout | undefined;
  const log = deps.logger.child({ lane: spec.name });
  tolerateLocalQueueReturnFailure(deps.logger);
  // Workers (of any runner of this lane, ended ones included) running a job right now.
  const busy = new Set<string>();
  // Workers of ended runners whose ids are released when their job ends.
  const releaseWhenIdle = new Set<string>();
  // Ids of runners being replaced after a failed fetch (`retire`): vouched for until they have stopped.
  const retiring = new Set<string>();
  const releaseNow = (workerIds: readonly string[]) => {
    for (const id of workerIds) releaseWhenIdle.delete(id);
    if (workerIds.length > 0) onDead(workerIds);
  };

  const launch = async (): Promise<Runner> => {
    const events: WorkerEvents = new EventEmitter();
    const mine: string[] = [];
    let started: Runner | undefined;
    let fetchFailedAtStart = false;
    events.on("worker:create", ({ worker }) => mine.push(worker.workerId));
    events.on("job:start", ({ worker }) => busy.add(worker.workerId));
    events.on("job:complete", ({ worker }) => {
      busy.delete(worker.workerId);
      if (releaseWhenIdle.has(worker.workerId)) releaseNow([worker.workerId]);
    });
    // With a local queue the pool itself locks the jobs it fetches ahead: they are released like its workers'.
    events.on("pool:create", ({ workerPool }) => {
      mine.push(workerPool.id);
      const { onNotification } = spec;
      if (onNotification) {
        events.on("pool:listen:notification", ({ workerPool: pool, message }) => {
          if (pool === workerPool && message.channel === "jobs:insert") onNotification(message.payload);
        });
      }
    });
    // A pool that shuts down without being asked to (a completion or failure it could not write) takes no job
    // again, though its runner's promise may take long to settle, or never: the lane moves on at once.
    events.on("pool:gracefulShutdown", ({ message }) => {
      if (started) ended(started, mine, new Error(`graphile-worker pool shutting down: ${message}`));
    });
    started = await run({
      pgPool: deps.pool,
      events,
      ...graphileWorkerOptions({
        concurrency: spec.concurrency,
        localQueueSize: spec.localQueueSize,
        pollIntervalMs: deps.pollIntervalMs,
      }),
      noHandleSignals: true,
      logger: graphileLogger(log, () => {
        if (started) retire(started, mine);
        else fetchFailedAtStart = true;
      }),
      crontab: spec.crontab ?? "",
      taskList: spec.taskList,
    });
    const current = started;
    ids = mine;
    current.promise.then(
      () => ended(current, mine, undefined),
      (error: unknown) => ended(current, mine, error),
    );
    // A fetch that failed before `run` answered: retired once the caller has made it the lane's runner.
    if (fetchFailedAtStart) setImmediate(() => retire(current, mine));
    return current;
  };

  // An ended runner's lock ids: each released once its worker runs no job.
  const releaseOnceIdle = (lockIds: readonly string[]) => {
    const running = lockIds.filter((id) => busy.has(id));
    for (const id of running) releaseWhenIdle.add(id);
    releaseNow(lockIds.filter((id) => !busy.has(id)));
    if (running.length > 0)
      setTimeout(
        () => releaseNow(running.filter((id) => releaseWhenIdle.has(id))),
        BUSY_RELEASE_CAP_MS,
      ).unref();
  };

  const ended = (which: Runner, lockIds: string[], error: unknown) => {
    if (which !== runner || stopping) return;
    runner = undefined;
    ids = [];
    log.error({ err: error }, `the ${spec.name} runner stopped on its own; starting a new one`);
    releaseOnceIdle(lockIds);
    scheduleStart();
  };

  // A fetch of jobs failed: if its commit went through and only its answer was lost (a failover cutting the
  // connection between them), jobs are locked under the runner's live pool id that nobody will run, and the
  // heartbeat never unlocks a live id's jobs (graphile-worker only after four hours). The runner is replaced at
  // once and stopped gracefully (its jobs under way finish, its prefetched ones go back); its ids are vouched
  // for until then and released after, which unlocks whatever that fetch locked.
  const retire = (which: Runner, lockIds: string[]) => {
    if (which !== runner || stopping) return;
    runner = undefined;
    ids = [];
    for (const id of lockIds) retiring.add(id);
    log.warn(
      `the ${spec.name} runner could not fetch jobs; replacing it, its locks released once it has stopped`,
    );
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const id of lockIds) retiring.delete(id);
      releaseOnceIdle(lockIds);
    };
    setTimeout(release, BUSY_RELEASE_CAP_MS).unref();
    which
      .stop()
      .catch((error: unknown) =>
        log.warn({ err: error }, `the replaced ${spec.name} runner stopped with an error`),
      )
      .finally(release);
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
    lockIds: () => [...ids, ...releaseWhenIdle, ...retiring],
    stop: async () => {
      stopping = true;
      clearTimeout(retry);
      const current = runner;
      runner = undefined;
      await current?.stop();
    },
  };
}
