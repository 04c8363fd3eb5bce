import { z } from "zod";
import type { AreaEnv } from "./kinds.ts";

/** What every program reports: logs, traces, and where /metrics, /healthz and /readyz listen. */
export const variables = {
  MAILROOM_INTERNAL_HOST: z.string().min(1).default("127.0.0.1"),
  MAILROOM_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  MAILROOM_OTEL_EXPORTER: z.enum(["none", "otlp", "console"]).default("none"),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    internalHost: e.MAILROOM_INTERNAL_HOST,
    log: { level: e.MAILROOM_LOG_LEVEL },
    telemetry: {
      exporter: e.MAILROOM_OTEL_EXPORTER,
      otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
      serviceName: e.OTEL_SERVICE_NAME,
    },
  };
}
