import { z } from "zod";
import { type AreaEnv, bool, port } from "./kinds.ts";

/** `mailroom smtp` (one program, two doors, each on or off: ADR 0019) and the relay the worker hands mail to. */
export const variables = {
  MAILROOM_SUBMISSION_ENABLED: bool.default(true),
  MAILROOM_SUBMISSION_HOST: z.string().min(1).default("127.0.0.1"),
  MAILROOM_SUBMISSION_PORT: port.default(2587),
  MAILROOM_SUBMISSION_TLS_PORT: port.default(2465),
  MAILROOM_SUBMISSION_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3600).default(300),
  MAILROOM_SMTP_INTERNAL_PORT: port.default(9467),
  // Unset: the local capture on MAILROOM_SMTP_CAPTURE_PORT, so moving the capture alone keeps it in use.
  MAILROOM_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .optional(),
  MAILROOM_SMTP_CAPTURE_PORT: port.default(2525),
  MAILROOM_HOSTNAME: z.string().min(1).default("mailroom.localhost"),
  MAILROOM_INBOUND_ENABLED: bool.default(true),
  MAILROOM_INBOUND_SMTP_HOST: z.string().min(1).default("127.0.0.1"),
  MAILROOM_INBOUND_SMTP_PORT: port.default(2526),
  MAILROOM_INBOUND_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  MAILROOM_INBOUND_REPORT_RETENTION_HOURS: z.coerce.number().int().min(1).default(720),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    smtpProgram: { internalPort: e.MAILROOM_SMTP_INTERNAL_PORT },
    submission: {
      enabled: e.MAILROOM_SUBMISSION_ENABLED,
      host: e.MAILROOM_SUBMISSION_HOST,
      port: e.MAILROOM_SUBMISSION_PORT,
      tlsPort: e.MAILROOM_SUBMISSION_TLS_PORT,
      timeoutSeconds: e.MAILROOM_SUBMISSION_TIMEOUT_SECONDS,
    },
    smtp: {
      url: e.MAILROOM_SMTP_URL ?? `smtp://127.0.0.1:${e.MAILROOM_SMTP_CAPTURE_PORT}`,
      capturePort: e.MAILROOM_SMTP_CAPTURE_PORT,
      hostname: e.MAILROOM_HOSTNAME,
    },
    inbound: {
      enabled: e.MAILROOM_INBOUND_ENABLED,
      host: e.MAILROOM_INBOUND_SMTP_HOST,
      port: e.MAILROOM_INBOUND_SMTP_PORT,
      maxBytes: e.MAILROOM_INBOUND_MAX_BYTES,
      reportRetentionHours: e.MAILROOM_INBOUND_REPORT_RETENTION_HOURS,
    },
  };
}
