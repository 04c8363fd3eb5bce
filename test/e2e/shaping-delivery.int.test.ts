import { deriveVerpKey } from "@mailroom/core/bounces";
import { loadConfig } from "@mailroom/core/config";
import { createKey } from "@mailroom/core/keys";
import { createLogger, createWorkerMetrics } from "@mailroom/core/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigner, startWorker, type WorkerHandle } from "../../worker/src/index.ts";
import { createDirectTransport } from "../../worker/src/transports/direct.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { type CountingSmtpSink, startCountingSink } from "../support/smtp-sinks.ts";
import { type ApiStack, startApiStack, TEST_KEK } from "../support/stack.ts";
import { until } from "../support/wait.ts";

// The real worker in direct mode (its transport on the test receiver's port: production's is 25) delivering
// to a throttling receiver whose MX hosts form the provider group `bigmail`: the 421 and the backoff it
// causes are what the email's timeline says, through the public email log.
let db: TestDatabase;
let api: ApiStack;
let dns: TestDnsServer;
let sink: CountingSmtpSink;
let worker: WorkerHandle | undefined;
const metrics = createWorkerMetrics();

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startCountingSink({ host: "127.0.0.1" });
  api = await startApiStack(db);
  for (const [domain, mx] of [
    ["alpha.test", "mx1.bigmail.test"],
    ["beta.test", "mx2.bigmail.test"],
  ] as const) {
    dns.setRecords(domain, [{ type: "MX", priority: 10, exchange: mx }]);
    dns.setRecords(mx, [{ type: "A", address: "127.0.0.1" }]);
  }
  const config = loadConfig({
    DATABASE_URL: db.url,
    MAILROOM_DELIVERY_MODE: "direct",
    MAILROOM_WORKER_CONCURRENCY: "1",
    MAILROOM_SHAPING_PROVIDERS: JSON.stringify([{ name: "bigmail", mxSuffixes: ["bigmail.test"] }]),
  });
  const transport = createDirectTransport({
    dnsServers: [dns.address],
    dnsCacheSeconds: 300,
    heloName: "out.mailroom.test",
    port: sink.port,
    connectTimeoutMs: 5_000,
    allowedCidrs: ["127.0.0.0/8"],
    shaping: { ...config.shaping, metrics },
  });
  worker = await startWorker(
    {
      config,
      pool: db.pool,
      logger: createLogger({ level: "silent", name: "test-worker" }),
      metrics,
      transport,
      signer: createSigner(db.pool, TEST_KEK),
      verpKey: deriveVerpKey(TEST_KEK),
      kek: TEST_KEK,
    },
    { pollIntervalMs: 200 },
  );
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

type Email = { status: string; events: Array<{ type: string; detail: Record<string, unknown> }> };

async function send(key: string, to: string): Promise<string> {
  const body = { from: "app@acme.test", to, subject: "Shaped", text: "hello", category: "transactional" };
  const res = await api.request("POST", "/v1/send", { key, body });
  expect(res.status).toBe(200);
  return String(res.json.messageId);
}

async function waitForStatus(key: string, id: string, status: string): Promise<Email> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await api.request("GET", `/v1/emails/${id}`, { key });
    const email = res.json as unknown as Email;
    if (email.status === status) return email;
    if (Date.now() > deadline) throw new Error(`email ${id} is ${email.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("direct delivery to a throttling provider, end to end", () => {
  it("defers on its 421 with the backoff on the timeline, then defers its other mail untried", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    await waitForStatus(fullKey, await send(fullKey, "first@alpha.test"), "delivered");

    sink.answerMailFrom = () => ({ code: 421, message: "4.7.28 Our system has detected an unusual rate" });
    const throttled = await waitForStatus(fullKey, await send(fullKey, "second@alpha.test"), "deferred");
    const deferral = throttled.events.find((e) => e.type === "deferred");
    expect(deferral?.detail.response).toMatch(
      /^second@alpha\.test: 421 4\.7\.28 Our system .*; destination bigmail backed off for 30 s$/,
    );
    expect(deferral?.detail.retryAt).toEqual(expect.any(String));
    const connections = sink.connections;

    // Another domain the provider hosts: the same destination, not tried while it is paused.
    const held = await waitForStatus(fullKey, await send(fullKey, "third@beta.test"), "deferred");
    expect(held.events.find((e) => e.type === "deferred")?.detail.response).toMatch(
      /^third@beta\.test: not attempted: destination bigmail backed off until \S+Z after "421 4\.7\.28 /,
    );
    expect(sink.connections).toBe(connections);
    expect(sink.messages.map((m) => m.envelope.to)).toEqual([["first@alpha.test"]]);

    // The task counts an outcome only after recording it (and the attempt's TLS sessions): the email's log
    // can say `deferred` before the counter has moved, so the scrape is read until it has.
    const shaped =
      /^mailroom_delivery_outcomes_total\{outcome="deferred",reason="shaped",transport="direct",program="worker"\} 1$/m;
    const scrape = await until(
      () => metrics.registry.metrics(),
      (text) => shaped.test(text),
      10_000,
    );
    // The attempt that was never tried is told apart from connection trouble.
    expect(scrape).toMatch(shaped);
    expect(scrape).toMatch(
      /^mailroom_delivery_outcomes_total\{outcome="deferred",reason="smtp_4xx",transport="direct",program="worker"\} 1$/m,
    );
    expect(scrape).toMatch(
      /^mailroom_delivery_destination_backed_off\{destination="bigmail",program="worker"\} 1$/m,
    );
    expect(scrape).toMatch(
      /^mailroom_delivery_destination_deferrals_total\{destination="bigmail",reason="backed_off",program="worker"\} 1$/m,
    );
    expect(scrape).toMatch(
      /^mailroom_delivery_destination_deferrals_total\{destination="bigmail",reason="rate_limited",program="worker"\} 1$/m,
    );
  });
});
