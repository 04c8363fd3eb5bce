import { deriveVerpKey } from "@mailroom/core/bounces";
import { loadConfig } from "@mailroom/core/config";
import { acceptEmails, listEvents } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { createLogger, createWorkerMetrics } from "@mailroom/core/telemetry";
import { readTransit } from "@mailroom/core/transit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import { type CountingSmtpSink, startCountingSink } from "../../../test/support/smtp-sinks.ts";
import { TEST_KEK } from "../../../test/support/stack.ts";
import { until } from "../../../test/support/wait.ts";
import { startWorker, type WorkerHandle } from "../runner.ts";
import { createSigner } from "../signing.ts";
import { createDirectTransport } from "../transports/direct.ts";

// The real worker delivering directly, through a real DNS server, to real SMTP receivers on two loopback
// addresses: `bigmail` (a provider group, two customer domains) starts throttling, `steady` never does.
const HOST_BIG = "127.0.0.1";
const HOST_STEADY = "127.0.0.2";
const THROTTLE = { code: 421, message: "4.7.28 Our system has detected an unusual rate of mail" };

let db: TestDatabase;
let dns: TestDnsServer;
let big: CountingSmtpSink;
let steady: CountingSmtpSink;
let worker: WorkerHandle | undefined;
let keyId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  big = await startCountingSink({ host: HOST_BIG, starttls: true });
  steady = await startCountingSink({ host: HOST_STEADY, port: big.port, starttls: true });
  const mx = (domain: string, host: string, address: string) => {
    dns.setRecords(domain, [{ type: "MX", priority: 10, exchange: host }]);
    dns.setRecords(host, [{ type: "A", address }]);
  };
  mx("alpha.test", "mx1.bigmail.test", HOST_BIG);
  mx("beta.test", "mx2.bigmail.test", HOST_BIG);
  mx("steady.test", "mx.steady.test", HOST_STEADY);
  keyId = (await createKey(db.pool, { account: "tenant", scopes: ["send"], expires: "never" })).key.keyId;
  const config = loadConfig({ DATABASE_URL: db.url });
  const bigmail = {
    name: "bigmail",
    mxSuffixes: ["bigmail.test"],
    concurrency: 4,
    messagesPerConnection: 100,
    ratePerMinute: 0,
  };
  worker = await startWorker(
    {
      config,
      pool: db.pool,
      logger: createLogger({ level: "silent", name: "test-worker" }),
      metrics: createWorkerMetrics(),
      transport: createDirectTransport({
        dnsServers: [dns.address],
        dnsCacheSeconds: 300,
        heloName: "out.mailroom.test",
        port: big.port,
        connectTimeoutMs: 5_000,
        allowedCidrs: ["127.0.0.0/8"],
        shaping: { ...config.shaping, providers: [bigmail], backoffSeconds: 600 },
      }),
      signer: createSigner(db.pool, TEST_KEK),
      verpKey: deriveVerpKey(TEST_KEK),
      kek: TEST_KEK,
    },
    { pollIntervalMs: 200 },
  );
});
afterAll(async () => {
  await worker?.stop();
  await big?.close();
  await steady?.close();
  await dns?.close();
  await db?.drop();
});

/** Sends one email and waits for its attempt's outcome on the timeline. */
async function deliver(to: string, outcome: "delivered" | "deferred") {
  const [accepted] = await acceptEmails(db.pool, { hostname: "test" }, [
    acceptItem("tenant", keyId, { draft: { to: [to] } }),
  ]);
  const id = String(accepted?.messageId);
  await until(
    () => listEvents(db.pool, id),
    (events) => events.some((e) => e.type === outcome),
    20_000,
  );
}

const PERIOD = () => ({ from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 3_600_000) });

describe("the deliver task's transit counts and the published shaping state", () => {
  it("count each domain's deliveries, deferrals by reason and sessions, and show the provider backed off", async () => {
    await deliver("u1@alpha.test", "delivered");
    big.answerMailFrom = () => THROTTLE;
    await deliver("u2@alpha.test", "deferred");
    // The same provider for another domain: deferred untried while it is backed off.
    await deliver("u3@beta.test", "deferred");
    await deliver("w1@steady.test", "delivered");
    expect(big.messages).toHaveLength(1);

    const view = await until(
      () => readTransit(db.pool, "tenant", PERIOD()),
      (v) => v.domains.length === 3 && v.domains.every((d) => d.destinations[0]?.state !== null),
      20_000,
    );
    const domain = (name: string) => view.domains.find((d) => d.domain === name);
    expect(domain("alpha.test")).toMatchObject({
      delivered: 1,
      deferred: 1,
      deferrals: [{ reason: "rate_limited", count: 1 }],
      lastFailure: {
        reason: expect.stringMatching(/^421 4\.7\.28 .*; destination bigmail backed off for 600 s$/),
      },
    });
    expect(domain("alpha.test")?.sessions).toEqual([
      { mechanism: "opportunistic", result: expect.any(String), count: 2 },
    ]);
    expect(domain("beta.test")).toMatchObject({
      delivered: 0,
      deferrals: [{ reason: "shaped", count: 1 }],
      lastFailure: { reason: expect.stringContaining("not attempted: destination bigmail backed off until") },
      sessions: [],
    });
    // The provider's state, published by the worker on the backoff: paused, at half its sessions.
    const bigmail = domain("alpha.test")?.destinations;
    expect(bigmail).toEqual([
      {
        destination: "group:bigmail",
        name: "bigmail",
        state: expect.objectContaining({
          backedOff: true,
          pausedUntil: expect.any(Date),
          level: 0.5,
          concurrency: 2,
          lastReply: expect.stringContaining("4.7.28"),
          workers: 1,
          workersBackedOff: 1,
        }),
      },
    ]);
    expect(domain("beta.test")?.destinations).toEqual(bigmail);
    expect(domain("steady.test")).toMatchObject({
      delivered: 1,
      deferred: 0,
      lastFailure: null,
      destinations: [
        {
          destination: "host:mx.steady.test",
          state: expect.objectContaining({ backedOff: false, level: 1 }),
        },
      ],
    });
    // Another account sees none of it.
    expect((await readTransit(db.pool, "someone-else", PERIOD())).domains).toEqual([]);

    // A stopped worker takes its published state along.
    await worker?.stop();
    worker = undefined;
    expect((await db.pool.query("select 1 from destination_shaping")).rowCount).toBe(0);
  });
});
