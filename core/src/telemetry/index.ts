export { type InternalServer, startInternalServer } from "./internal-server.ts";
export { createLogger, type Logger, REDACT_PATHS } from "./logger.ts";
export { createMetrics, type Metrics } from "./metrics.ts";
export {
  injectTraceContext,
  startServerSpan,
  startTracing,
  type Tracing,
  tracer,
  withSpanFromCarrier,
} from "./tracing.ts";
