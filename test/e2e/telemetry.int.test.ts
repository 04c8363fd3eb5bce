import { createKey } from "@mailroom/core/keys";
import {
  createProgramRegistry,
  observeDatabaseState,
  startInternalServer,
  startTracing,
  type Tracing,
} from "@mailroom/core/telemetry";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { freePort } from "../support/ports.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, captureLogs, startApiStack, startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";

const LOOPBACK = { MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8" };
const exporter = new InMemorySpanExporter();
const apiLogs = captureLogs();
const workerLogs = captureLogs();
let tracing: Tracing;
let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;

beforeAll(async () => {
  tracing = await startTracing({
    serviceName: "mailroom-test",
    exporter: "none",
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  db = await createTestDatabase();
  sink = await startSmtpSink();
  sink.answer = (rcpt) =>
    rcpt.startsWith("gone") ? { code: 550, message: "5.1.1 no such user" } : { code: 250 };
  api = await startApiStack(db, { env: LOOPBACK, logger: apiLogs.logger });
});
afterAll(async () => {
  await api.close();
  await sink.close();
  await db.drop();
  await tracing.shutdown();
});

/**
 * A loopback port nobody listens on: freePort's, below the kernel's ephemeral range. A port that range gave out
 * and took back could be given meanwhile to a server another test file starts on port 0, and then answer.
 */
const closedPort = freePort;

const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;
const logsOf = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe("telemetry", () => {
  it("traces an email from the request through accept and its job to the SMTP handover; logs name the spans", async () => {
    const { fullKey } = await createKey(db.pool, {
      account: "traced",
      scopes: ["send", "webhooks"],
      expires: "never",
    });
    // A receiver that refuses connections: each webhook attempt fails and logs a line inside its span.
    const hook = await api.request("POST", "/v1/webhooks", {
      key: fullKey,
      body: { url: `http://127.0.0.1:${await closedPort()}/hook`, events: ["email.delivered"] },
    });
    expect(hook.status, hook.text).toBe(201);
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await api.request("POST", "/v1/send", {
      key: fullKey,
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: { from: "a@acme.test", to: "b@example.test", subject: "traced", text: "t" },
    });
    expect(res.status).toBe(200);
    const gone = await api.request("POST", "/v1/send", {
      key: fullKey,
      body: { from: "a@acme.test", to: "gone@example.test", subject: "bounces", text: "t" },
    });
    expect(gone.status).toBe(200);

    // The backlog as the worker's gauges show it before any worker runs: once one runs, it may already have
    // claimed both emails (sending) by the time its registry is read.
    const probe = createProgramRegistry("worker");
    observeDatabaseState(probe, db.pool, { minIntervalMs: 0 });
    const before = await probe.metrics();
    const worker = await startWorkerStack(db, sink.url, LOOPBACK, { logger: workerLogs.logger });
    observeDatabaseState(worker.metrics.registry, db.pool, { minIntervalMs: 0 });
    try {
      await sink.waitFor(1);
      await until(
        async () => exporter.getFinishedSpans().filter((s) => s.name === "webhook attempt").length,
        (n) => n > 0,
        20_000,
      );
      await until(
        async () =>
          (await db.pool.query("select 1 from emails where status in ('queued', 'sending')")).rowCount,
        (n) => n === 0,
        10_000,
      );
    } finally {
      await worker.stop();
    }

    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === "POST /v1/send" && s.spanContext().traceId === traceId);
    const accept = spans.find((s) => s.name === "accept" && s.spanContext().traceId === traceId);
    const deliver = spans.find((s) => s.name === "deliver" && s.spanContext().traceId === traceId);
    const handover = spans.find((s) => s.name === "smtp handover" && s.spanContext().traceId === traceId);
    expect(parentOf(accept)).toBe(server?.spanContext().spanId);
    expect(parentOf(deliver)).toBe(accept?.spanContext().spanId);
    expect(parentOf(handover)).toBe(deliver?.spanContext().spanId);
    expect(handover?.attributes["mailroom.transport"]).toBe("relay");
    // The attempt's steps, in order: where a slow delivery's time went (bench/fairness reads them).
    expect(deliver?.events.map((e) => e.name)).toEqual(["claimed", "composed", "signed"]);
    const ms = ([s, ns]: [number, number]) => s * 1e3 + ns / 1e6;
    const stepTimes = (deliver?.events ?? []).map((e) => ms(e.time));
    expect(stepTimes).toEqual([...stepTimes].sort((a, b) => a - b));
    expect(deliver?.attributes["mailroom.account"]).toBe("traced");

    // Every line the request logged carries its trace, and the access line names the server span.
    const requestLines = logsOf(apiLogs.lines).filter((l) => l.trace_id === traceId);
    expect(requestLines.map((l) => l.msg)).toContain("request completed");
    for (const line of requestLines) expect(line.span_id).toBe(server?.spanContext().spanId);
    expect(logsOf(apiLogs.lines).filter((l) => l.msg === "request completed" && !l.trace_id)).toEqual([]);

    // The webhook attempt's failure line names the attempt's span, under the job's span.
    const attempt = spans.find((s) => s.name === "webhook attempt");
    const job = spans.find((s) => s.name === "webhook_deliver");
    expect(parentOf(attempt)).toBe(job?.spanContext().spanId);
    const failed = logsOf(workerLogs.lines).find((l) => String(l.msg).includes("attempt failed"));
    expect(failed).toMatchObject({
      trace_id: attempt?.spanContext().traceId,
      span_id: attempt?.spanContext().spanId,
    });

    // The worker's series after this known sequence: 2 queued, then 1 delivered and 1 bounced.
    expect(before).toMatch(/^mailroom_emails\{status="queued",program="worker"\} 2$/m);
    expect(before).toMatch(
      /^mailroom_emails_oldest_age_seconds\{status="queued",program="worker"\} [0-9.]+$/m,
    );
    const after = await worker.metrics.registry.metrics();
    expect(after).toMatch(
      /^mailroom_delivery_outcomes_total\{outcome="delivered",reason="ok",transport="relay",program="worker"\} 1$/m,
    );
    expect(after).toMatch(
      /^mailroom_delivery_outcomes_total\{outcome="bounced",reason="smtp_5xx",transport="relay",program="worker"\} 1$/m,
    );
    expect(after).toMatch(
      /^mailroom_delivery_duration_seconds_count\{program="worker",transport="relay"\} 2$/m,
    );
    expect(after).toMatch(/^mailroom_emails\{status="queued",program="worker"\} 0$/m);
    expect(after).toMatch(/^mailroom_webhook_attempts_total\{result="retry",program="worker"\} [1-9]/m);
    expect(after).toMatch(/^mailroom_webhook_endpoints\{state="failing",program="worker"\} 1$/m);
    expect(after).toMatch(
      /^mailroom_build_info\{version="[^"]+",node_version="[^"]+",program="worker"\} 1$/m,
    );
    // Each program exports only its own series.
    expect(after).not.toContain("mailroom_http_requests_total");
    const apiSeries = await api.metrics.registry.metrics();
    expect(apiSeries).not.toContain("mailroom_delivery");
    expect(apiSeries).not.toContain("mailroom_emails{");
  });

  it("serves metrics, health and readiness on the internal port", async () => {
    let ready = true;
    let healthy = true;
    const internal = await startInternalServer({
      host: "127.0.0.1",
      port: 0,
      registry: api.metrics.registry,
      ready: async () => ready,
      healthy: () => healthy,
    });
    try {
      const base = `http://127.0.0.1:${internal.port}`;
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/mailroom_http_requests_total\{route="\/v1\/send",method="POST",status="200"/);
      expect(metrics).toMatch(/mailroom_emails_accepted_total\{result="queued",program="api"\} 2/);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      ready = false;
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
      // The operator: a leader that stopped renewing its Lease is restarted by the liveness probe.
      healthy = false;
      expect((await fetch(`${base}/healthz`)).status).toBe(503);
    } finally {
      await internal.close();
    }
  });

  it("continues an email's trace in its webhook POSTs: email.queued under accept, email.delivered under deliver", async () => {
    const { fullKey } = await createKey(db.pool, {
      account: "traced-hooks",
      scopes: ["send", "webhooks"],
      expires: "never",
    });
    const receiver = await startWebhookReceiver();
    const hook = await api.request("POST", "/v1/webhooks", {
      key: fullKey,
      body: { url: `${receiver.origin}/hook`, events: ["email.queued", "email.delivered"] },
    });
    expect(hook.status, hook.text).toBe(201);
    receiver.setSecrets(String(hook.json.secret));
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const res = await api.request("POST", "/v1/send", {
      key: fullKey,
      headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      body: { from: "a@acme.test", to: "hooked@example.test", subject: "hooked", text: "t" },
    });
    expect(res.status).toBe(200);
    const worker = await startWorkerStack(db, sink.url, LOOPBACK, { logger: workerLogs.logger });
    const posts = () =>
      exporter
        .getFinishedSpans()
        .filter((s) => s.name === "webhook POST" && s.spanContext().traceId === traceId);
    try {
      await receiver.waitFor(2, 30_000);
      await until(
        async () => posts().length,
        (n) => n >= 2,
        10_000,
      );
    } finally {
      await worker.stop();
      await receiver.close();
    }
    expect(receiver.received.map((r) => r.payload?.type)).toEqual(["email.queued", "email.delivered"]);

    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const accept = spans.find((s) => s.name === "accept");
    const deliver = spans.find((s) => s.name === "deliver");
    const postOf = (type: string) =>
      posts().find((s) => s.attributes["mailroom.webhook_event_type"] === type);
    expect(accept && deliver).toBeTruthy();
    expect(parentOf(postOf("email.queued"))).toBe(accept?.spanContext().spanId);
    expect(parentOf(postOf("email.delivered"))).toBe(deliver?.spanContext().spanId);
    expect(postOf("email.delivered")?.attributes["http.response.status_code"]).toBe(204);
    // Each POST links to the attempt span of the job that sent it (the job serves many emails' traces).
    const attempts = exporter.getFinishedSpans().filter((s) => s.name === "webhook attempt");
    for (const post of posts()) {
      const linked = post.links.map((l) => l.context.spanId);
      expect(attempts.some((a) => linked.includes(a.spanContext().spanId))).toBe(true);
    }
  });
});
