import {
  type Context,
  context,
  isSpanContextValid,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  trace,
} from "@opentelemetry/api";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";

export interface TracingOptions {
  serviceName: string;
  exporter: "none" | "otlp" | "console";
  otlpEndpoint?: string | undefined;
  /** Extra processors (tests pass an in-memory exporter's processor). */
  spanProcessors?: SpanProcessor[];
}

export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK. With exporter `none` and no extra processors nothing is started: spans are
 * no-ops and cost nothing. The SDK installs the W3C trace-context propagator used by `injectTraceContext`.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  if (options.exporter === "none" && (options.spanProcessors ?? []).length === 0) {
    return { shutdown: async () => {} };
  }
  // Loaded only when tracing is on: the SDK costs tens of MB of memory that an untraced process keeps.
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const { BatchSpanProcessor, ConsoleSpanExporter } = await import("@opentelemetry/sdk-trace-base");
  const processors = [...(options.spanProcessors ?? [])];
  if (options.exporter === "otlp") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    const url = options.otlpEndpoint ? `${options.otlpEndpoint.replace(/\/$/, "")}/v1/traces` : undefined;
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter(url ? { url } : {})));
  } else if (options.exporter === "console") {
    processors.push(new BatchSpanProcessor(new ConsoleSpanExporter()));
  }
  const sdk = new NodeSDK({ serviceName: options.serviceName, spanProcessors: processors });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

export const tracer = () => trace.getTracer("mailroom");

/** Starts a server span continuing the caller's trace when the request carried a `traceparent`. */
export function startServerSpan(name: string, headers: Record<string, unknown>): Span {
  const parent = propagation.extract(context.active(), headers);
  return tracer().startSpan(name, { kind: SpanKind.SERVER }, parent);
}

/**
 * Runs `fn` inside a child span of `parent` (or of the active span when no parent is given), recording an
 * error and ending the span when `fn` settles. With tracing off the span is a no-op.
 */
export async function withChildSpan<T>(
  name: string,
  parent: Span | undefined,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const base = parent ? trace.setSpan(context.active(), parent) : context.active();
  return runInSpan(base, tracer().startSpan(name, { kind: SpanKind.INTERNAL }, base), fn);
}

/** The ids a log line carries to find its trace; undefined when the span is not sampled or tracing is off. */
export function traceFields(span: Span | undefined): { trace_id: string; span_id: string } | undefined {
  const ctx = span?.spanContext();
  if (!ctx || !isSpanContextValid(ctx)) return undefined;
  return { trace_id: ctx.traceId, span_id: ctx.spanId };
}

/** The W3C trace context of a span, to carry in a job payload; empty when tracing is off. */
export function injectTraceContext(span: Span): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** Runs `fn` inside a span whose parent is the trace context carried in a job payload. */
export async function withSpanFromCarrier<T>(
  name: string,
  carrier: Record<string, string> | undefined,
  attributes: Record<string, string>,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(context.active(), carrier ?? {});
  return runInSpan(parent, tracer().startSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent), fn);
}

/**
 * Runs `fn` in a client span that continues the trace context `carrier` holds (the change that caused this
 * work, e.g. the delivery behind a webhook event) and links to the active span (the job doing it, which
 * serves many traces). With no usable carrier the span is a plain child of the active span.
 */
export async function withSpanContinuing<T>(
  name: string,
  carrier: Record<string, string> | null | undefined,
  attributes: Record<string, string>,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const active = context.active();
  const carried = propagation.extract(ROOT_CONTEXT, carrier ?? {});
  const remote = trace.getSpanContext(carried);
  const current = trace.getSpanContext(active);
  const continues = remote !== undefined && isSpanContextValid(remote);
  const parent = continues ? carried : active;
  const links: Link[] = continues && current && isSpanContextValid(current) ? [{ context: current }] : [];
  return runInSpan(
    parent,
    tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes, links }, parent),
    fn,
  );
}

/** Makes `span` the active span while `fn` runs; records a failure and ends the span when it settles. */
async function runInSpan<T>(parent: Context, span: Span, fn: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: 2 });
    throw error;
  } finally {
    span.end();
  }
}
