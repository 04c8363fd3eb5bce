import { request } from "node:https";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { type ApiStack, startApiStack } from "../../../../../test/support/stack.ts";

let db: TestDatabase;
let api: ApiStack;
let acme: string;
let globex: string;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "true" } });
  ({ fullKey: acme } = await createKey(db.pool, { account: "acme", scopes: ["send"], expires: "never" }));
  ({ fullKey: globex } = await createKey(db.pool, { account: "globex", scopes: ["send"], expires: "never" }));
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const body = (key: string, extra: Record<string, unknown> = {}) => ({
  from: "Acme <hello@acme.test>",
  to: ["a@example.test", "b@example.test"],
  subject: "Receipt",
  text: "Thanks",
  headers: { "X-One": "1", "X-Two": "2" },
  tags: [{ name: "order", value: "7" }],
  idempotencyKey: key,
  ...extra,
});

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** One request on its own TLS connection (no agent, no keep-alive), with the body sent verbatim. */
function post(apiKey: string, payload: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `https://localhost:${api.server.port}/v1/send`,
      {
        method: "POST",
        agent: false,
        ca: api.ca,
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error("request timed out")));
    req.on("error", reject);
    req.end(payload);
  });
}

async function rowsFor(account: string, key: string) {
  const { rows } = await db.pool.query<{ emails: number; jobs: number; keys: number }>(
    `select (select count(*)::int from emails e
               where e.id in (select email_id from idempotency_keys where account = $1 and key = $2)) as emails,
            (select count(*)::int from emails where account = $1 and subject = $3) as subject_emails,
            (select count(*)::int from graphile_worker._private_jobs j
               where (j.payload->>'emailId')::uuid in (select id from emails where account = $1 and subject = $3)) as jobs,
            (select count(*)::int from idempotency_keys where account = $1 and key = $2) as keys`,
    [account, key, `Receipt ${key}`],
  );
  return rows[0] as { emails: number; subject_emails: number; jobs: number; keys: number };
}

describe("idempotency (DESIGN.md §4)", () => {
  it("answers a repeat with duplicate and the original messageId, writing nothing more", async () => {
    const payload = JSON.stringify(body("repeat-1", { subject: "Receipt repeat-1" }));
    const first = await post(acme, payload);
    expect(first).toEqual({ status: 200, json: { status: "queued", messageId: expect.any(String) } });
    for (let i = 0; i < 3; i++) {
      const again = await post(acme, payload);
      expect(again).toEqual({ status: 200, json: { status: "duplicate", messageId: first.json.messageId } });
    }
    expect(await rowsFor("acme", "repeat-1")).toEqual({ emails: 1, subject_emails: 1, jobs: 1, keys: 1 });
  });

  it("is scoped to the account: the same key in two accounts makes two emails", async () => {
    const payload = JSON.stringify(body("shared-key", { subject: "Receipt shared-key" }));
    const a = await post(acme, payload);
    const g = await post(globex, payload);
    expect(a.json.status).toBe("queued");
    expect(g.json.status).toBe("queued");
    expect(g.json.messageId).not.toBe(a.json.messageId);
    expect(await rowsFor("acme", "shared-key")).toMatchObject({ emails: 1, jobs: 1, keys: 1 });
    expect(await rowsFor("globex", "shared-key")).toMatchObject({ emails: 1, jobs: 1, keys: 1 });
    // And each account's repeat resolves to its own email.
    expect((await post(globex, payload)).json).toEqual({ status: "duplicate", messageId: g.json.messageId });
    expect((await post(acme, payload)).json).toEqual({ status: "duplicate", messageId: a.json.messageId });
  });

  it("hashes the canonical body: property order, whitespace and escapes do not matter", async () => {
    const first = await post(acme, JSON.stringify(body("canonical-1")));
    expect(first.json.status).toBe("queued");
    const reordered = `{
      "tags": [{"value": "7", "name": "order"}],
      "idempotencyKey": "canonical-1",
      "text": "Thanks",
      "headers": {"X-Two": "2", "X-One": "1"},
      "subject": "Re\\u0063eipt",
      "to": ["a@example.test", "b@example.test"],
      "from": "Acme <hello@acme.test>"
    }`;
    expect(await post(acme, reordered)).toEqual({
      status: 200,
      json: { status: "duplicate", messageId: first.json.messageId },
    });
    // The key given as a header instead of in the body is the same request.
    const { idempotencyKey: _k, ...withoutKey } = body("canonical-1");
    expect((await post(acme, JSON.stringify(withoutKey), { "idempotency-key": "canonical-1" })).json).toEqual(
      {
        status: "duplicate",
        messageId: first.json.messageId,
      },
    );
  });

  it.each([
    ["another text", { text: "Thanks!" }],
    ["recipients in another order", { to: ["b@example.test", "a@example.test"] }],
    ["one more field", { category: "billing" }],
    ["another header value", { headers: { "X-One": "1", "X-Two": "3" } }],
    ["a scheduled time", { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() }],
  ])("answers 422 idempotency_key_mismatch for %s, writing nothing", async (label, patch) => {
    const key = `mismatch-${label.replaceAll(" ", "-")}`;
    const first = await post(acme, JSON.stringify(body(key)));
    expect(first.json.status).toBe("queued");
    const { rows: before } = await db.pool.query("select count(*)::int as n from emails");
    const res = await post(acme, JSON.stringify(body(key, patch)));
    expect(res).toEqual({
      status: 422,
      json: { error: "idempotency_key_mismatch", message: expect.stringContaining("idempotencyKey") },
    });
    const { rows: after } = await db.pool.query("select count(*)::int as n from emails");
    expect(after).toEqual(before);
    // The original still answers duplicate.
    expect((await post(acme, JSON.stringify(body(key)))).json.status).toBe("duplicate");
  });

  it("resolves 20 truly concurrent twins to one queued and 19 duplicates of it, one row and one job", async () => {
    for (let round = 0; round < 3; round++) {
      const key = `concurrent-${round}`;
      const payload = JSON.stringify(body(key, { subject: `Receipt ${key}` }));
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(acme, payload)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      const queued = answers.filter((a) => a.json.status === "queued");
      const duplicates = answers.filter((a) => a.json.status === "duplicate");
      expect(queued).toHaveLength(1);
      expect(duplicates).toHaveLength(19);
      const id = queued[0]?.json.messageId;
      expect(duplicates.every((d) => d.json.messageId === id)).toBe(true);
      expect(await rowsFor("acme", key)).toEqual({ emails: 1, subject_emails: 1, jobs: 1, keys: 1 });
    }
  });

  it("resolves concurrent twins with different bodies: one queued, same body duplicate, other body 422", async () => {
    const key = "concurrent-mixed";
    const a = JSON.stringify(body(key, { subject: `Receipt ${key}` }));
    const b = JSON.stringify(body(key, { subject: `Receipt ${key}`, text: "other" }));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(acme, i % 2 ? a : b)));
    const winner = answers.find((x) => x.json.status === "queued");
    expect(answers.filter((x) => x.json.status === "queued")).toHaveLength(1);
    const winnerIsA = answers.indexOf(winner as Answer) % 2 === 1;
    answers.forEach((x, i) => {
      const sameBody = (i % 2 === 1) === winnerIsA;
      if (x === winner) return;
      if (sameBody)
        expect(x).toEqual({ status: 200, json: { status: "duplicate", messageId: winner?.json.messageId } });
      else expect(x.json).toEqual({ error: "idempotency_key_mismatch", message: expect.any(String) });
    });
    expect(await rowsFor("acme", key)).toEqual({ emails: 1, subject_emails: 1, jobs: 1, keys: 1 });
  });

  it("resolves concurrent twins across a batch and single sends to one email", async () => {
    const key = "concurrent-batch";
    const one = body(key, { subject: `Receipt ${key}` });
    const batch = (): Promise<Answer> =>
      new Promise((resolve, reject) => {
        const req = request(
          `https://localhost:${api.server.port}/v1/send/batch`,
          {
            method: "POST",
            agent: false,
            ca: api.ca,
            headers: { authorization: `Bearer ${acme}`, "content-type": "application/json" },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
            );
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify([one]));
      });
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => batch()),
      ...Array.from({ length: 5 }, () => post(acme, JSON.stringify(one))),
    ]);
    const results = answers.map((a) =>
      Array.isArray(a.json.data) ? (a.json.data[0] as Record<string, unknown>) : a.json,
    );
    expect(results.filter((r) => r.status === "queued")).toHaveLength(1);
    expect(results.filter((r) => r.status === "duplicate")).toHaveLength(9);
    expect(new Set(results.map((r) => r.messageId)).size).toBe(1);
    expect(await rowsFor("acme", key)).toEqual({ emails: 1, subject_emails: 1, jobs: 1, keys: 1 });
  });
});
