import { purgeReports } from "@mailroom/core/bounces";
import { purgeIdempotencyKeys } from "@mailroom/core/emails";
import { purgeRateLimitCounters } from "@mailroom/core/limits";
import type { Task } from "graphile-worker";
import type { WorkerDeps } from "../deps.ts";

declare global {
  namespace GraphileWorker {
    interface Tasks {
      purge_expired: Record<string, never>;
    }
  }
}

/**
 * Runs every few minutes (crontab in runner.ts): forgets expired idempotency keys, rate-limit windows and
 * processed bounce reports past their retention.
 */
export function makePurgeTask(deps: WorkerDeps): Task<"purge_expired"> {
  return async (_payload, helpers) => {
    const keys = await purgeIdempotencyKeys(deps.pool, deps.config.limits.idempotencyRetentionHours);
    const windows = await purgeRateLimitCounters(deps.pool);
    const reports = await purgeReports(deps.pool, deps.config.inbound.reportRetentionHours);
    helpers.logger.info(
      `purged ${keys} idempotency key(s), ${windows} rate-limit window(s) and ${reports} report(s)`,
    );
  };
}
