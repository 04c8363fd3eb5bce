import { z } from "zod";
import type { AreaEnv } from "./kinds.ts";

/** The audit trail (issue 33 item 4, ADR 0062): how long its rows are kept. */
export const variables = {
  // A year by default: long enough to answer "who revoked that key" after a quarter's review; 0 keeps them.
  MAILROOM_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(365),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    audit: {
      /** Audit rows older than this many days are purged by the purge job; 0: never. */
      retentionDays: e.MAILROOM_AUDIT_RETENTION_DAYS,
    },
  };
}
