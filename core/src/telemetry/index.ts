// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { startInternalServer } from "./internal-server.ts";
export { createLogger, type Logger, redactSecrets } from "./logger.ts";
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
export { observeTenants } from "./tenant-gauges.ts";
export {
  injectTraceContext,
  startServerSpan,
  startTracing,
  traceFields,
  withChildSpan,
  withSpanContinuing,
  withSpanFromCarrier,
} from "./tracing.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export type { Tracing } from "./tracing.ts";
