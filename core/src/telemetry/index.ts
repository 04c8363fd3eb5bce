export { type InternalServer, startInternalServer } from "./internal-server.ts";
export { createLogger, type Logger, REDACT_PATHS, redactSecrets } from "./logger.ts";
export {
  type ApiMetrics,
  createApiMetrics,
  createProgramRegistry,
  createSmtpMetrics,
  createWorkerMetrics,
  observePool,
  type SmtpMetrics,
  type WorkerMetrics,
} from "./metrics.ts";
export { observeDatabaseState } from "./state-gauges.ts";
export {
  injectTraceContext,
  startServerSpan,
  startTracing,
  type Tracing,
  traceFields,
  tracer,
  withChildSpan,
  withSpanContinuing,
  withSpanFromCarrier,
} from "./tracing.ts";
