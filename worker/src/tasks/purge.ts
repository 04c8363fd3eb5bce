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

/** Runs every few minutes (crontab in runner.ts): forgets expired idempotency keys and rate-limit windows. */
export function makePurgeTask(deps: WorkerDeps): Task<"purge_expired"> {
  return async (_payload, helpers) => {
    const keys = await purgeIdempotencyKeys(deps.pool, deps.config.limits.idempotencyRetentionHours);
    const windows = await purgeRateLimitCounters(deps.pool);
    helpers.logger.info(`purged ${keys} idempotency key(s) and ${windows} rate-limit window(s)`);
  };
}
