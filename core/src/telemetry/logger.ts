import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger };

/**
 * Paths pino censors wherever they appear. Authorization carries the full API key; `apiKey` is the field the
 * CLI and operator use for a generated key. The key id is safe to log and is logged as `keyId`.
 */
export const REDACT_PATHS = [
  "req.headers.authorization",
  "headers.authorization",
  "authorization",
  "*.authorization",
  "apiKey",
  "*.apiKey",
  "fullKey",
  "*.fullKey",
  "privateKey",
  "*.privateKey",
];

export interface LoggerOptions {
  level: string;
  name: string;
  /** Where lines go; stdout by default. Tests pass a capturing stream. */
  destination?: DestinationStream;
}

/** A pino JSON logger with Mailroom's redaction rules. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      base: { service: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
