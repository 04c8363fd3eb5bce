import type { Logger as PinoLogger } from "@mailroom/core/telemetry";
import { Logger, type Runner, run } from "graphile-worker";
import type { WorkerDeps } from "./deps.ts";
import { makeDeliverTask } from "./tasks/deliver.ts";

function graphileLogger(logger: PinoLogger): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const fields = { scope, ...(meta ?? {}) };
    if (level === "error") logger.error(fields, message);
    else if (level === "warning") logger.warn(fields, message);
    else if (level === "info") logger.info(fields, message);
    else logger.debug(fields, message);
  });
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
  const runner = await run({
    pgPool: deps.pool,
    concurrency: deps.config.worker.concurrency,
    noHandleSignals: true,
    pollInterval: options.pollIntervalMs ?? 2_000,
    logger: graphileLogger(deps.logger),
    // Mailroom's periodic jobs are registered in code, not read from a crontab file.
    crontab: "",
    taskList: { deliver: makeDeliverTask(deps) },
  });
  return {
    runner,
    stop: async () => {
      await runner.stop();
      deps.transport.close();
    },
  };
}
