import type { Config } from "@mailroom/core/config";
import type { Pool } from "@mailroom/core/db";
import type { Logger, Metrics } from "@mailroom/core/telemetry";
import type { Transporter } from "./transport.ts";

/** What the worker's tasks need, passed in. */
export interface WorkerDeps {
  config: Config;
  pool: Pool;
  logger: Logger;
  metrics: Metrics;
  transport: Transporter;
}
