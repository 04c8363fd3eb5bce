import type { Config } from "@mailroom/core/config";
import type { Pool } from "@mailroom/core/db";
import type { Logger, SmtpMetrics } from "@mailroom/core/telemetry";
import type { TlsMaterial } from "@mailroom/core/tls";
import type { AuthThrottleOptions } from "./submission/auth-throttle.ts";

/** What the SMTP servers need from their program: passed in, never reached through module singletons. */
export interface SmtpDeps {
  config: Config;
  pool: Pool;
  logger: Logger;
  metrics: SmtpMetrics;
  /** The API's certificate and key: the SMTP ports serve the same ones. */
  tls: TlsMaterial;
  /** How failed AUTHs from one address are slowed down (default: DEFAULT_AUTH_THROTTLE). */
  authThrottle?: AuthThrottleOptions;
  /** The clock, injectable so key expiry can be tested without waiting. */
  now?: () => Date;
}
