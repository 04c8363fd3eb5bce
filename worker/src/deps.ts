import type { VerpKey } from "@mailroom/core/bounces";
import type { Config } from "@mailroom/core/config";
import type { Pool } from "@mailroom/core/db";
import type { Logger, WorkerMetrics } from "@mailroom/core/telemetry";
import type { Signer } from "./signing.ts";
import type { MailTransport } from "./transports/index.ts";

/** What the worker's tasks need, passed in. */
export interface WorkerDeps {
  config: Config;
  pool: Pool;
  logger: Logger;
  metrics: WorkerMetrics;
  transport: MailTransport;
  signer: Signer;
  /** The key-encryption key: new DKIM keys (rotation) are encrypted under it. */
  kek: Buffer;
  /** Checks the VERP tokens of bounce reports (derived from the key-encryption key). */
  verpKey: VerpKey;
}
