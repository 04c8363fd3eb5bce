import { trace } from "@opentelemetry/api";
import pino, { type DestinationStream, type Logger } from "pino";
import { traceFields } from "./tracing.ts";

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

// Anything shaped like an API key (spec §5.8), even malformed or URL-encoded, up to the next URL, JSON or
// header delimiter; a Standard Webhooks secret; the credentials of an Authorization header quoted in a text.
const KEY_SHAPED = /mrk(?:_|%5f)[^\s"'&/?#\\,;]*/gi;
const WELL_FORMED_KEY = /^mrk_([0-9A-Za-z]{12})_/;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=]+/g;
// Credentials as a header carries them (token68, at least 8 characters): "Bearer token" in prose stays.
const CREDENTIALS = /\b(Bearer|Basic) +[A-Za-z0-9._~+/=-]{8,}/g;
const MAYBE_SECRET = /mrk(?:_|%5f)|whsec_|Bearer|Basic/i;

/**
 * Removes secrets from a text about to be logged: a key keeps its id (safe to log, and what an operator needs
 * to find it) and loses its secret; a webhook secret and Authorization credentials go entirely. Applied to
 * every serialised log line, so a key in a URL, a header, an error message or a quoted body never reaches
 * the log, whichever field carries it.
 */
export function redactSecrets(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  return text
    .replace(KEY_SHAPED, (key) => {
      const id = WELL_FORMED_KEY.exec(key)?.[1];
      return id ? `mrk_${id}_[redacted]` : "mrk_[redacted]";
    })
    .replace(WEBHOOK_SECRET, "whsec_[redacted]")
    .replace(CREDENTIALS, "$1 [redacted]");
}

export interface LoggerOptions {
  level: string;
  name: string;
  /** Where lines go; stdout by default. Tests pass a capturing stream. */
  destination?: DestinationStream;
}

/**
 * pino's error serialiser keeps every enumerable property; node-postgres attaches the whole `client` (its
 * connection state, parsed statements and type tables: kilobytes per line) to the errors of idle clients.
 */
function serializeError(error: unknown) {
  const serialized = pino.stdSerializers.err(error as Error) as Record<string, unknown>;
  if (serialized && typeof serialized === "object") delete serialized.client;
  return serialized;
}

/** A pino JSON logger with Mailroom's redaction rules: censored fields, and `redactSecrets` on every line. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      base: { service: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: { streamWrite: redactSecrets },
      serializers: { err: serializeError },
      // A line written inside a span (a job, an SMTP handover) names it, so logs and traces join up. With
      // tracing off there is no active span and nothing is added.
      mixin: () => traceFields(trace.getActiveSpan()) ?? {},
    },
    options.destination,
  );
}
