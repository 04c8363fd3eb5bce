import { type AddressInfo, createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { createPool, type Pool } from "@mailroom/core/db";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { type ApiStack, startApiStack } from "../../test/support/stack.ts";

const SEND = { from: "Acme <hello@acme.test>", to: "you@example.test", subject: "Hi", text: "Hello" };

/**
 * A TCP proxy between the API's pool and Postgres that the test can break: `refuse` kills every connection
 * and stops listening (Postgres down: ECONNREFUSED), `blackhole` keeps connections open but forwards nothing
 * (a network partition: nothing answers), `up` forwards again on the same port.
 */
class FlakyProxy {
  port = 0;
  private server: Server | undefined;
  private readonly pairs = new Set<[Socket, Socket]>();
  private readonly held = new Set<Socket>();
  private mode: "up" | "blackhole" | "refuse" = "up";

  private readonly upstreamHost: string;
  private readonly upstreamPort: number;

  constructor(upstreamHost: string, upstreamPort: number) {
    this.upstreamHost = upstreamHost;
    this.upstreamPort = upstreamPort;
  }

  async start(): Promise<void> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  private accept(client: Socket): void {
    client.on("error", () => client.destroy());
    if (this.mode !== "up") {
      this.held.add(client);
      client.once("close", () => this.held.delete(client));
      return;
    }
    const upstream = netConnect(this.upstreamPort, this.upstreamHost);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once("close", drop);
    upstream.once("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Postgres gone: every connection reset, new ones refused. */
  async refuse(): Promise<void> {
    this.mode = "refuse";
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    this.server = undefined;
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    await closed;
  }

  /** Nothing answers: open connections stall, new ones are accepted and never spoken to. */
  blackhole(): void {
    this.mode = "blackhole";
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  async up(): Promise<void> {
    this.mode = "up";
    for (const socket of this.held) socket.destroy();
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    if (!this.server) await this.start();
  }

  async close(): Promise<void> {
    await this.refuse();
    for (const socket of this.held) socket.destroy();
  }
}

let db: TestDatabase;
let proxy: FlakyProxy;
let pool: Pool;
let api: ApiStack;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const target = new URL(db.url);
  proxy = new FlakyProxy(target.hostname, Number(target.port || 5432));
  await proxy.start();
  const viaProxy = new URL(db.url);
  viaProxy.hostname = "127.0.0.1";
  viaProxy.port = String(proxy.port);
  pool = createPool({ url: viaProxy.toString(), max: 4, applicationName: "mailroom-availability-test" });
  api = await startApiStack(
    { url: viaProxy.toString(), pool, drop: async () => {} },
    {
      env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "true" },
    },
  );
  ({ fullKey: key } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" }));
});
afterAll(async () => {
  await api?.close();
  await pool?.end();
  await proxy?.close();
  await db?.drop();
});

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

function expectUnavailable(res: {
  status: number;
  json: Record<string, unknown>;
  headers: Record<string, unknown>;
}) {
  expect(res.status, JSON.stringify(res.json)).toBe(503);
  expect(res.json).toEqual({ error: "service_unavailable", message: expect.any(String) });
  expect(JSON.stringify(res.json)).not.toMatch(/ECONN|127\.0\.0\.1|postgres|terminated|timeout exceeded/i);
  const retryAfter = Number(res.headers["retry-after"]);
  expect(Number.isInteger(retryAfter) && retryAfter > 0, `Retry-After: ${res.headers["retry-after"]}`).toBe(
    true,
  );
}

async function emailCount(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>("select count(*)::int as n from emails");
  return rows[0]?.n ?? 0;
}

/** Polls until a send succeeds again, within a bound; returns how long recovery took. */
async function waitForRecovery(boundMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await api.request("POST", "/v1/send", { key, body: SEND });
    if (res.status === 200) return performance.now() - started;
    expect([503]).toContain(res.status);
    if (performance.now() - started > boundMs) throw new Error(`still ${res.status} after ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("database outage", () => {
  it("serves normally through the proxy", async () => {
    const res = await api.request("POST", "/v1/send", { key, body: SEND });
    expect(res.status).toBe(200);
  });

  it("answers 503 service_unavailable with Retry-After, fast, when Postgres refuses connections", async () => {
    await proxy.refuse();
    const before = await emailCount();
    // The key lookup is the first query of every request: it must fail as 503, not 401 or 500.
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(() => api.request("POST", "/v1/send", { key, body: SEND }));
      expectUnavailable(value);
      expect(ms).toBeLessThan(6_000);
    }
    const batch = await api.request("POST", "/v1/send/batch", { key, body: [SEND, SEND] });
    expectUnavailable(batch);
    // Many at once: none hangs, none is a 500.
    const { value: many, ms } = await timed(() =>
      Promise.all(Array.from({ length: 20 }, () => api.request("POST", "/v1/send", { key, body: SEND }))),
    );
    for (const res of many) expectUnavailable(res);
    expect(ms).toBeLessThan(10_000);
    // What needs no database still answers as usual.
    const missing = await api.request("POST", "/v1/send", { body: SEND });
    expect(missing.status).toBe(401);
    expect(await emailCount()).toBe(before);
  });

  it("recovers by itself when Postgres returns", async () => {
    await proxy.up();
    expect(await waitForRecovery(10_000)).toBeLessThan(10_000);
    const after = await Promise.all(
      Array.from({ length: 20 }, () => api.request("POST", "/v1/send", { key, body: SEND })),
    );
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(200));
    const batch = await api.request("POST", "/v1/send/batch", { key, body: [SEND, SEND] });
    expect(batch.status).toBe(200);
  });

  it("answers 503 within a bound when Postgres stops answering (network partition), then recovers", async () => {
    // Warm the pool so it holds idle connections that will stall.
    await Promise.all(Array.from({ length: 8 }, () => api.request("POST", "/v1/send", { key, body: SEND })));
    proxy.blackhole();
    const { value: answers, ms } = await timed(() =>
      Promise.all(Array.from({ length: 6 }, () => api.request("POST", "/v1/send", { key, body: SEND }))),
    );
    for (const res of answers) expectUnavailable(res);
    expect(ms).toBeLessThan(35_000);
    await proxy.up();
    expect(await waitForRecovery(15_000)).toBeLessThan(15_000);
  }, 90_000);
});
