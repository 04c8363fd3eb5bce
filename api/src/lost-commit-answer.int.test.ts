import { type AddressInfo, createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { createPool, type Pool } from "@mailroom/core/db";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { type ApiStack, startApiStack } from "../../test/support/stack.ts";

// A failover's worst moment for a send (issue 28, ADR 0033): the accept statement committed, and the
// connection died before its answer reached the API. The API cannot know it committed: it must answer 503
// (retryable), never 2xx nor 500, and the client's retry with the same idempotencyKey must find the commit.

// ReadyForQuery ('Z', length 5): Postgres sends it only after the statement's implicit transaction committed.
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

/** Forwards to Postgres; once armed, drops the connection that carries the accept instead of its answer. */
class AnswerCutter {
  port = 0;
  cut = 0;
  private armed = false;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly upstreamPort: number;

  constructor(upstreamPort: number) {
    this.upstreamPort = upstreamPort;
  }

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = netConnect(this.upstreamPort, "127.0.0.1");
      let carriesAccept = false;
      let answer = Buffer.alloc(0);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("error", () => {});
        s.once("close", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on("data", (chunk: Buffer) => {
        // The prepared accept statement is named in its Parse and in every Bind (core/src/emails/accept.ts).
        if (this.armed && chunk.includes("mailroom_accept")) carriesAccept = true;
        upstream.write(chunk);
      });
      upstream.on("data", (chunk: Buffer) => {
        if (!carriesAccept) {
          client.write(chunk);
          return;
        }
        // Hold the answer until the commit is certain, then lose all of it with the connection.
        answer = Buffer.concat([answer, chunk]);
        if (!answer.includes(READY_FOR_QUERY)) return;
        this.armed = false;
        this.cut += 1;
        client.destroy();
        upstream.destroy();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  arm(): void {
    this.armed = true;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

let db: TestDatabase;
let cutter: AnswerCutter;
let pool: Pool;
let api: ApiStack;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  cutter = new AnswerCutter(Number(new URL(db.url).port));
  await cutter.start();
  const viaCutter = new URL(db.url);
  viaCutter.hostname = "127.0.0.1";
  viaCutter.port = String(cutter.port);
  pool = createPool({ url: viaCutter.toString(), max: 4, applicationName: "mailroom-lost-answer-test" });
  api = await startApiStack({ url: viaCutter.toString(), pool, drop: async () => {} });
  ({ fullKey: key } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" }));
});
afterAll(async () => {
  await api?.close();
  await pool?.end();
  await cutter?.close();
  await db?.drop();
});

it("answers 503 when the commit's answer is lost, and the retry with the same key answers duplicate", async () => {
  const body = {
    from: "Acme <hello@acme.test>",
    to: "you@example.test",
    subject: "Hi",
    text: "Hello",
    idempotencyKey: "lost-answer-1",
  };
  cutter.arm();
  const first = await api.request("POST", "/v1/send", { key, body });
  expect(cutter.cut).toBe(1);
  expect(first.status, JSON.stringify(first.json)).toBe(503);
  expect(first.json.error).toBe("service_unavailable");
  expect(first.headers["retry-after"]).toBeDefined();

  // It had committed: the email is there, once, though nobody was told.
  const { rows } = await db.pool.query<{ id: string }>(
    "select e.id from idempotency_keys k join emails e on e.id = k.email_id where k.key = $1",
    [body.idempotencyKey],
  );
  expect(rows).toHaveLength(1);

  const retry = await api.request("POST", "/v1/send", { key, body });
  expect(retry.status).toBe(200);
  expect(retry.json).toEqual({ status: "duplicate", messageId: rows[0]?.id });
  // One delivery job for it: the retry enqueued nothing more.
  const jobs = await db.pool.query<{ n: number }>(
    "select count(*)::int as n from graphile_worker._private_jobs where payload->>'emailId' = $1",
    [rows[0]?.id],
  );
  expect(jobs.rows[0]?.n).toBe(1);
});
