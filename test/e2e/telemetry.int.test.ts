import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../core/src/keys/index.ts";
import { startInternalServer, startTracing, type Tracing } from "../../core/src/telemetry/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";

const exporter = new InMemorySpanExporter();
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
  api = await startApiStack(db);
});
afterAll(async () => {
  await api.close();
  await sink.close();
  await db.drop();
  await tracing.shutdown();
});

describe("telemetry", () => {
  it("carries the request's trace from the API through the job to the SMTP handover", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await api.request("POST", "/v1/send", {
      key: fullKey,
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: { from: "a@acme.test", to: "b@example.test", subject: "traced", text: "t" },
    });
    expect(res.status).toBe(200);
    const { rows } = await db.pool.query<{ payload: { emailId: string; trace?: { traceparent?: string } } }>(
      "select payload from graphile_worker._private_jobs where payload->>'emailId' = $1",
      [res.json.messageId],
    );
    expect(rows[0]?.payload.trace?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "2" });
    try {
      await sink.waitFor(1);
      const deadline = Date.now() + 5_000;
      while (!exporter.getFinishedSpans().some((s) => s.name === "deliver") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await worker.stop();
    }
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === "POST /v1/send");
    const deliver = spans.find((s) => s.name === "deliver");
    expect(server?.spanContext().traceId).toBe(traceId);
    expect(deliver?.spanContext().traceId).toBe(traceId);
    expect(deliver?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
  });

  it("serves metrics, health and readiness on the internal port", async () => {
    let ready = true;
    const internal = await startInternalServer({
      host: "127.0.0.1",
      port: 0,
      registry: api.metrics.registry,
      ready: async () => ready,
    });
    try {
      const base = `http://127.0.0.1:${internal.port}`;
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/mailroom_http_requests_total\{route="\/v1\/send",method="POST",status="200"/);
      expect(metrics).toMatch(/mailroom_emails_accepted_total\{result="queued",program="api"\} 1/);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      ready = false;
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
    } finally {
      await internal.close();
    }
  });
});
