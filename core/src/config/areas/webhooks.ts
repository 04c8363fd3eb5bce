import { z } from "zod";
import { parseCidrList } from "../../net/index.ts";
import { DEFAULT_RETRY_POLICY } from "../../webhooks/schedule.ts";
import { type AreaEnv, cidrList } from "./kinds.ts";

/** Webhook deliveries: where they may go, how long they wait, how they retry. */
export const variables = {
  MAILROOM_WEBHOOK_ALLOWED_CIDRS: cidrList,
  MAILROOM_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  MAILROOM_WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().min(0.001).default(120),
  MAILROOM_WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "comma-separated delays in milliseconds, first one usually 0")
    .optional(),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    webhooks: {
      allowedCidrs: e.MAILROOM_WEBHOOK_ALLOWED_CIDRS ? parseCidrList(e.MAILROOM_WEBHOOK_ALLOWED_CIDRS) : [],
      timeoutMs: e.MAILROOM_WEBHOOK_TIMEOUT_MS,
      retryPolicy: {
        scheduleMs: e.MAILROOM_WEBHOOK_RETRY_SCHEDULE_MS
          ? e.MAILROOM_WEBHOOK_RETRY_SCHEDULE_MS.split(",").map((v) => Number(v.trim()))
          : DEFAULT_RETRY_POLICY.scheduleMs,
        disableAfterMs: e.MAILROOM_WEBHOOK_DISABLE_AFTER_HOURS * 3600 * 1000,
        maxRetryAfterMs: DEFAULT_RETRY_POLICY.maxRetryAfterMs,
      },
    },
  };
}
