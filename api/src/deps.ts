import type { Config } from "@mailroom/core/config";
import { createReadRouter, type Pool, type ReadRouter } from "@mailroom/core/db";
import type { ApiMetrics, Logger } from "@mailroom/core/telemetry";

/** What the API needs from its program: passed in, never reached through module singletons. */
export interface ApiDeps {
  config: Config;
  pool: Pool;
  logger: Logger;
  metrics: ApiMetrics;
  /** Key-encryption key for DKIM private keys at rest. */
  kek: Buffer;
  /** Where the email log and the console's reads run (ADR 0032); unset: on `pool`, the primary. */
  reads?: ReadRouter;
  /** The clock, injectable so key expiry can be tested without waiting 30 days. */
  now?: () => Date;
}

/** The routes' read path: the program's router (a replica when fresh enough), else the primary. */
export function readsOf(deps: ApiDeps): ReadRouter {
  return deps.reads ?? createReadRouter({ primary: deps.pool });
}
