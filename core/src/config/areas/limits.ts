import { z } from "zod";
import { ConfigError } from "../error.ts";
import type { AreaEnv } from "./kinds.ts";

/** Rate limits and how long requests and emails are remembered. */
export const variables = {
  MAILROOM_RATE_LIMIT_PER_KEY: z.coerce.number().int().min(0).default(500),
  MAILROOM_RATE_LIMIT_PER_ACCOUNT: z.coerce.number().int().min(0).default(2000),
  MAILROOM_IDEMPOTENCY_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24),
  MAILROOM_EMAIL_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  // The overview's hourly counters outlive the emails they count: a year's trend costs a row per hour and value.
  MAILROOM_STATS_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(400),
};

export function build(e: AreaEnv<typeof variables>) {
  if (
    e.MAILROOM_EMAIL_RETENTION_DAYS > 0 &&
    e.MAILROOM_EMAIL_RETENTION_DAYS * 24 < e.MAILROOM_IDEMPOTENCY_RETENTION_HOURS
  ) {
    throw new ConfigError(
      `MAILROOM_EMAIL_RETENTION_DAYS (${e.MAILROOM_EMAIL_RETENTION_DAYS}) must cover MAILROOM_IDEMPOTENCY_RETENTION_HOURS ` +
        `(${e.MAILROOM_IDEMPOTENCY_RETENTION_HOURS}): a retried request must not be answered with an email already purged`,
    );
  }
  return {
    limits: {
      rateLimit: { perKey: e.MAILROOM_RATE_LIMIT_PER_KEY, perAccount: e.MAILROOM_RATE_LIMIT_PER_ACCOUNT },
      idempotencyRetentionHours: e.MAILROOM_IDEMPOTENCY_RETENTION_HOURS,
      /** Finished emails (and their events, attachments and webhook events) are purged after this; 0: never. */
      emailRetentionDays: e.MAILROOM_EMAIL_RETENTION_DAYS,
      /** The overview's counters (`email_stats`) are purged after this; 0: never. */
      statsRetentionDays: e.MAILROOM_STATS_RETENTION_DAYS,
    },
  };
}
