import { processReport } from "@mailroom/core/bounces";
import type { Task } from "graphile-worker";
import "./types.ts";
import type { WorkerDeps } from "../deps.ts";

/**
 * One bounce or complaint report the SMTP receiver stored: parse it, find the email, apply its effects
 * (core/src/bounces/process.ts). Running it twice is harmless: a processed report is skipped.
 */
export function makeProcessReportTask(deps: WorkerDeps): Task<"process_report"> {
  return async (payload, helpers) => {
    const result = await processReport({ pool: deps.pool, verpKey: deps.verpKey }, payload.reportId);
    if (!result) return;
    helpers.logger.info(`report ${payload.reportId} ${result.status}`, { outcome: result.outcome });
  };
}
