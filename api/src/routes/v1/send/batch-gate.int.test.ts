import type { ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { describe, expect, it } from "vitest";
import type { TestDatabase } from "../../../../../test/support/db.ts";
import { type ApiStack, useSendApi } from "../../../../../test/support/stack.ts";

let db: TestDatabase;
let api: ApiStack;
let key: string;
// One slot: a second batch waits until the first one's response has closed.
useSendApi(
  (stack) => {
    ({ db, api, key } = stack);
  },
  { MAILROOM_BATCH_CONCURRENCY: "1" },
);

let sent = 0;
const batchBody = (size: number) =>
  JSON.stringify(
    Array.from({ length: size }, () => {
      sent++;
      return { from: "Acme <hello@acme.test>", to: `gate${sent}@example.test`, subject: "Hi", text: "Hello" };
    }),
  );

interface Answer {
  status: number;
  json: { data?: { status: string }[]; error?: string };
}

/**
 * A batch POSTed over the real TLS listener, its body written by the test: `write` sends part of it (the
 * server then holds the request in body parsing), `finish` the rest, `abort` drops the connection.
 */
function openBatch(body: string) {
  const req: ClientRequest = httpsRequest(`https://localhost:${api.server.port}/v1/send/batch`, {
    method: "POST",
    ca: api.ca,
    agent: false,
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
    },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
      );
    });
    req.on("error", reject);
  });
  const half = Math.floor(body.length / 2);
  let written = 0;
  return {
    answer,
    write: () => {
      req.write(body.slice(0, half));
      written = half;
    },
    finish: () => req.end(body.slice(written)),
    abort: async () => {
      answer.catch(() => {});
      req.destroy();
      await new Promise((resolve) => req.once("close", resolve));
    },
  };
}

/** The gate's gauge, by state. */
async function gate(): Promise<{ admitted: number; waiting: number }> {
  const { values } = await api.metrics.batchRequests.get();
  const of = (state: string) => values.find((v) => v.labels.state === state)?.value ?? 0;
  return { admitted: of("admitted"), waiting: of("waiting") };
}

/** Polls the gauge until it shows `want`: the server has reached that state. */
async function gateReaches(want: { admitted: number; waiting: number }): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const now = await gate();
    if (now.admitted === want.admitted && now.waiting === want.waiting) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(await gate()).toEqual(want);
}

async function emailsTo(prefix: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    "select count(*)::int as n from emails where to_addresses[1] like $1",
    [`${prefix}%`],
  );
  return rows[0]?.n ?? 0;
}

const accepted = (a: Answer) => ({ status: a.status, statuses: a.json.data?.map((d) => d.status) });

describe("POST /v1/send/batch admission (MAILROOM_BATCH_CONCURRENCY=1)", () => {
  it("holds a second batch, body unread, until the first is answered; then answers both", async () => {
    const first = openBatch(batchBody(3));
    first.write();
    await gateReaches({ admitted: 1, waiting: 0 });
    const second = openBatch(batchBody(2));
    second.write();
    second.finish();
    await gateReaches({ admitted: 1, waiting: 1 });

    first.finish();
    expect(accepted(await first.answer)).toEqual({ status: 200, statuses: Array(3).fill("queued") });
    expect(accepted(await second.answer)).toEqual({ status: 200, statuses: Array(2).fill("queued") });
    await gateReaches({ admitted: 0, waiting: 0 });
  });

  it("frees the slot when a batch is refused (bad JSON, schema error, too many items)", async () => {
    for (const body of ["[{", JSON.stringify([{ to: "x@example.test" }]), batchBody(101)]) {
      const refused = openBatch(body);
      refused.write();
      refused.finish();
      expect((await refused.answer).status).toBe(400);
      await gateReaches({ admitted: 0, waiting: 0 });
    }
    const next = openBatch(batchBody(1));
    next.finish();
    expect((await next.answer).status).toBe(200);
  });

  it("frees the slot of a client that disconnects mid-body, and admits the one waiting", async () => {
    const before = await emailsTo("gate");
    const dropped = openBatch(batchBody(4));
    dropped.write();
    await gateReaches({ admitted: 1, waiting: 0 });
    const waiting = openBatch(batchBody(2));
    waiting.write();
    waiting.finish();
    await gateReaches({ admitted: 1, waiting: 1 });

    await dropped.abort();
    expect(accepted(await waiting.answer)).toEqual({ status: 200, statuses: ["queued", "queued"] });
    await gateReaches({ admitted: 0, waiting: 0 });
    // Only the answered batch was stored: a dropped request's half body commits nothing.
    expect((await emailsTo("gate")) - before).toBe(2);
  });

  it("forgets a client that disconnects while waiting: its place is not granted to nobody", async () => {
    const holder = openBatch(batchBody(1));
    holder.write();
    await gateReaches({ admitted: 1, waiting: 0 });
    const leaving = openBatch(batchBody(1));
    leaving.write();
    await gateReaches({ admitted: 1, waiting: 1 });
    await leaving.abort();
    await gateReaches({ admitted: 1, waiting: 0 });

    holder.finish();
    expect((await holder.answer).status).toBe(200);
    await gateReaches({ admitted: 0, waiting: 0 });
    // Had the leaver been granted the freed slot, this one would wait forever.
    const next = openBatch(batchBody(1));
    next.finish();
    expect((await next.answer).status).toBe(200);
  });

  it("leaves single sends and unauthenticated batches outside the gate", async () => {
    const holder = openBatch(batchBody(1));
    holder.write();
    await gateReaches({ admitted: 1, waiting: 0 });
    const single = await api.request("POST", "/v1/send", {
      key,
      body: { from: "hello@acme.test", to: "one@example.test", subject: "Hi", text: "Hello" },
    });
    expect(single.status).toBe(200);
    const anonymous = await api.request("POST", "/v1/send/batch", { body: JSON.parse(batchBody(1)) });
    expect(anonymous.status).toBe(401);
    expect(await gate()).toEqual({ admitted: 1, waiting: 0 });
    holder.finish();
    expect((await holder.answer).status).toBe(200);
  });
});
