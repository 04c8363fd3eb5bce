import { startServerSpan, traceFields } from "@mailroom/core/telemetry";
import type { Span } from "@opentelemetry/api";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../deps.ts";

declare module "fastify" {
  interface FastifyRequest {
    span: Span;
  }
}

/**
 * Request metrics and one server span per request (continuing an incoming `traceparent`), whose ids the
 * request's log lines carry.
 */
export function registerTelemetry(app: FastifyInstance, deps: ApiDeps): void {
  app.decorateRequest("span", undefined as unknown as Span);
  app.addHook("onRequest", async (request) => {
    request.span = startServerSpan(
      `${request.method} ${request.routeOptions.url ?? "unknown"}`,
      request.headers,
    );
    // Every line this request logs (its access line included) names its trace when tracing is on.
    const ids = traceFields(request.span);
    if (ids) request.log = request.log.child(ids);
  });
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unknown";
    deps.metrics.httpRequests.inc({ route, method: request.method, status: String(reply.statusCode) });
    deps.metrics.httpDuration.observe({ route }, reply.elapsedTime / 1000);
    request.span.setAttribute("http.response.status_code", reply.statusCode);
    if (request.apiKey) request.span.setAttribute("mailroom.key_id", request.apiKey.keyId);
    request.span.end();
  });
}
