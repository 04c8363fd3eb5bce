import { z } from "zod";
import { ConfigError } from "../error.ts";
import { type AreaEnv, optionalPath, port } from "./kinds.ts";

/** The HTTPS API, and the certificate it shares with SMTP submission. */
export const variables = {
  MAILROOM_API_HOST: z.string().min(1).default("127.0.0.1"),
  MAILROOM_API_PORT: port.default(8443),
  MAILROOM_TLS_CERT_FILE: optionalPath,
  MAILROOM_TLS_KEY_FILE: optionalPath,
  MAILROOM_TLS_RELOAD_SECONDS: z.coerce.number().min(0).max(86_400).default(60),
  MAILROOM_API_INTERNAL_PORT: port.default(9464),
  MAILROOM_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  MAILROOM_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),
};

export function build(e: AreaEnv<typeof variables>) {
  if ((e.MAILROOM_TLS_CERT_FILE === undefined) !== (e.MAILROOM_TLS_KEY_FILE === undefined)) {
    throw new ConfigError(
      "MAILROOM_TLS_CERT_FILE and MAILROOM_TLS_KEY_FILE must be set together (or neither, to use the local CA)",
    );
  }
  return {
    api: {
      host: e.MAILROOM_API_HOST,
      port: e.MAILROOM_API_PORT,
      internalPort: e.MAILROOM_API_INTERNAL_PORT,
      bodyLimitBytes: e.MAILROOM_BODY_LIMIT_BYTES,
      /** Batch requests read, parsed and committed at once; the others wait with their body unread. */
      batchConcurrency: e.MAILROOM_BATCH_CONCURRENCY,
      tlsReloadSeconds: e.MAILROOM_TLS_RELOAD_SECONDS,
      tls:
        e.MAILROOM_TLS_CERT_FILE && e.MAILROOM_TLS_KEY_FILE
          ? { certFile: e.MAILROOM_TLS_CERT_FILE, keyFile: e.MAILROOM_TLS_KEY_FILE }
          : undefined,
    },
  };
}
