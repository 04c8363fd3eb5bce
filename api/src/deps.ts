import type { Config } from "@mailroom/core/config";
import type { Pool } from "@mailroom/core/db";
import type { ApiMetrics, Logger } from "@mailroom/core/telemetry";

/** What the API needs from its program: passed in, never reached through module singletons. */
export interface ApiDeps {
  config: Config;
  pool: Pool;
  logger: Logger;
  metrics: ApiMetrics;
  /** Key-encryption key for DKIM private keys at rest. */
  kek: Buffer;
  /** The local run's capture directory: set only by `mailroom run`, it turns on the /v1/dev-inbox routes. */
  devInboxDir?: string;
  /** The clock, injectable so key expiry can be tested without waiting 30 days. */
  now?: () => Date;
}
