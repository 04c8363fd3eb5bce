import type { Logger as PinoLogger } from "@mailroom/core/telemetry";
import { Logger, type RunnerOptions } from "graphile-worker";

// How every Mailroom runner drives graphile-worker: its settings and its log lines in ours.

/** graphile-worker 0.17 tells a failed fetch of its local queue only by this line (lane.int.test.ts holds it). */
const LOCAL_QUEUE_FETCH_FAILURE = "Error occurred fetching jobs";

/**
 * The graphile-worker settings of every Mailroom runner, shared with bench/webhooks/main.ts so that its figure
 * describes what ships. Jobs are fetched in batches (one query locks up to `concurrency` ready jobs) and
 * completed in batches: per job, one `get_job` and one `complete_job` round trip cost the database more than
 * the delivery's own statements. A crash between a task's end and its batched completion re-runs the task,
 * which every task tolerates (a delivery re-claims and skips an email already delivered).
 */
export function graphileWorkerOptions(options: {
  concurrency: number;
  /**
   * Jobs one fetch locks ahead of the workers (default: `concurrency`). A job added after a fetch waits behind
   * every job that fetch took, whatever its priority: fewer means fairer turns and more fetches (ADR 0053).
   */
  localQueueSize?: number | undefined;
  /** Fallback poll for jobs (default 2 s); new jobs are announced by LISTEN/NOTIFY. */
  pollIntervalMs?: number | undefined;
}): Pick<RunnerOptions, "concurrency" | "pollInterval" | "preset"> {
  return {
    concurrency: options.concurrency,
    pollInterval: options.pollIntervalMs ?? 2_000,
    preset: {
      worker: {
        localQueue: { size: options.localQueueSize ?? options.concurrency },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
  };
}

/**
 * graphile-worker's log lines in ours. Its "Completed task … with success" line, one per job with the whole
 * job row attached, goes to debug: at info it was the worker's only line per delivery and a measurable share
 * of its CPU (issue 21's profile); outcomes are in the timeline and the metrics. Failures keep their level.
 */
export function graphileLogger(logger: PinoLogger, onFetchFailed?: () => void): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const fields = { scope, ...(meta ?? {}) };
    if (onFetchFailed && level === "error" && message.startsWith(LOCAL_QUEUE_FETCH_FAILURE)) onFetchFailed();
    if (level === "error") logger.error(fields, message);
    else if (level === "warning") logger.warn(fields, message);
    else if (level === "info" && meta?.success !== true) logger.info(fields, message);
    else logger.debug(fields, message);
  });
}
