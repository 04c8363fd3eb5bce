import { runReputationGuard } from "@mailroom/core/reputation";
import type { Task } from "graphile-worker";
import "./types.ts";
import type { WorkerDeps } from "../deps.ts";

/**
 * Every minute (`PERIODIC_JOBS` in core/src/jobs): the reputation guard (core/src/reputation, ADR 0052) rolls
 * the timeline's settled events into the hourly counters, stores each account's and sending domain's 24 h and
 * 7 d rates and pauses an account whose bounces or complaints reached its pause line: a storm pauses its
 * account within about two runs, well inside five minutes.
 */
export function makeGuardReputationTask(deps: WorkerDeps): Task<"guard_reputation"> {
  return async (_payload, helpers) => {
    const run = await runReputationGuard(deps.pool, { now: new Date() });
    for (const { account, reason } of run.paused) {
      deps.metrics.accountsPaused.inc();
      helpers.logger.warn(`account ${account} paused: ${reason}`);
    }
  };
}
