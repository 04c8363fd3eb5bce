import { describe, expect, it } from "vitest";
import type { TestDatabase } from "../../../../../test/support/db.ts";
import { type ApiStack, useSendApi } from "../../../../../test/support/stack.ts";

const HOUR = 60 * 60 * 1000;

let db: TestDatabase;
let api: ApiStack;
let key: string;
useSendApi((stack) => {
  ({ db, api, key } = stack);
});

const item = (n: number, extra: Record<string, unknown> = {}) => ({
  from: "Acme <hello@acme.test>",
  to: `user${n}@example.test`,
  subject: `Message ${n}`,
  text: `Body ${n}`,
  ...extra,
});

interface BatchEntry {
  index: number;
  status: string;
  messageId?: string;
  error?: string;
  message?: string;
}

async function batch(body: unknown, headers: Record<string, string> = {}) {
  const res = await api.server.app.inject({
    method: "POST",
    url: "/v1/send/batch",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    payload: JSON.stringify(body),
  });
  const json = res.json() as { data?: BatchEntry[]; error?: string; message?: string };
  return { status: res.statusCode, json };
}

async function counts(): Promise<{ emails: number; jobs: number; keys: number; events: number }> {
  const { rows } = await db.pool.query(
    `select (select count(*)::int from emails) as emails,
            (select count(*)::int from graphile_worker._private_jobs) as jobs,
            (select count(*)::int from idempotency_keys) as keys,
            (select count(*)::int from email_events) as events`,
  );
  return rows[0] as { emails: number; jobs: number; keys: number; events: number };
}

async function recipientsById(ids: string[]): Promise<Map<string, string>> {
  const { rows } = await db.pool.query<{ id: string; to_addresses: string[] }>(
    "select id, to_addresses from emails where id = any($1::uuid[])",
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.to_addresses[0] as string]));
}

async function expectRefusedBatch(
  body: unknown,
  field: string,
  options: { headers?: Record<string, string>; status?: number; code?: string } = {},
) {
  const before = await counts();
  const res = await batch(body, options.headers);
  expect(res.status, JSON.stringify(res.json)).toBe(options.status ?? 400);
  expect(res.json).toEqual({ error: options.code ?? "validation_error", message: expect.any(String) });
  expect(res.json.message).toContain(field);
  expect(await counts()).toEqual(before);
  return res;
}

describe("POST /v1/send/batch", () => {
  it("accepts 100 emails and answers in request order", async () => {
    const before = await counts();
    const items = Array.from({ length: 100 }, (_, i) => item(i));
    const res = await batch(items);
    expect(res.status).toBe(200);
    const data = res.json.data as BatchEntry[];
    expect(data).toHaveLength(100);
    expect(data.map((d) => d.index)).toEqual(items.map((_, i) => i));
    expect(data.every((d) => d.status === "queued")).toBe(true);
    const ids = data.map((d) => d.messageId as string);
    expect(new Set(ids).size).toBe(100);
    const to = await recipientsById(ids);
    ids.forEach((id, i) => {
      expect(to.get(id)).toBe(`user${i}@example.test`);
    });
    expect(await counts()).toMatchObject({ emails: before.emails + 100, jobs: before.jobs + 100 });
  });

  it("commits every accepted item, its event and its job in one transaction", async () => {
    const res = await batch(Array.from({ length: 30 }, (_, i) => item(i)));
    const ids = (res.json.data as BatchEntry[]).map((d) => d.messageId);
    const { rows } = await db.pool.query<{ xmin: string }>(
      `select e.xmin::text from emails e where e.id = any($1::uuid[])
       union all select v.xmin::text from email_events v where v.email_id = any($1::uuid[])
       union all select j.xmin::text from graphile_worker._private_jobs j where (j.payload->>'emailId')::uuid = any($1::uuid[])`,
      [ids],
    );
    expect(rows).toHaveLength(90);
    expect(new Set(rows.map((r) => r.xmin)).size).toBe(1);
  });

  it("works over HTTPS too", async () => {
    const res = await api.request("POST", "/v1/send/batch", { key, body: [item(1), item(2)] });
    expect(res.status).toBe(200);
    expect((res.json.data as BatchEntry[]).map((d) => [d.index, d.status])).toEqual([
      [0, "queued"],
      [1, "queued"],
    ]);
  });

  it("refuses 101 emails, an empty array and a body that is not an array, writing nothing", async () => {
    const res = await expectRefusedBatch(
      Array.from({ length: 101 }, (_, i) => item(i)),
      "100",
    );
    expect(res.json.message).toMatch(/body/);
    await expectRefusedBatch([], "body");
    await expectRefusedBatch(item(1), "body");
    await expectRefusedBatch([item(1), "not an object"], "[1]");
  });

  it("schedules the items that carry scheduledAt", async () => {
    const at = new Date(Date.now() + HOUR).toISOString();
    const res = await batch([item(1), item(2, { scheduledAt: at })]);
    expect((res.json.data as BatchEntry[]).map((d) => d.status)).toEqual(["queued", "scheduled"]);
  });
});

describe("POST /v1/send/batch: strict validation (the default)", () => {
  it.each([
    [3, { priority: "high" }, "[3].priority"],
    [0, { to: "nope" }, "[0].to"],
    [7, { headers: { Bcc: "x@example.test" } }, "[7].headers.Bcc"],
    [99, { attachments: [{ filename: "a/b", content: "" }] }, "[99].attachments[0].filename"],
    [42, { scheduledAt: "2000-01-01T00:00:00Z" }, "[42].scheduledAt"],
    [5, { tags: [{ name: "a b", value: "c" }] }, "[5].tags[0].name"],
    [1, { subject: 5 }, "[1].subject"],
  ])(
    "refuses the whole batch when item %i is invalid, naming %s, writing nothing",
    async (bad, patch, field) => {
      const items = Array.from({ length: 100 }, (_, i) => (i === bad ? item(i, patch) : item(i)));
      await expectRefusedBatch(items, field);
    },
  );

  it("says strict explicitly the same way", async () => {
    await expectRefusedBatch([item(0), item(1, { to: 1 })], "[1].to", {
      headers: { "x-batch-validation": "strict" },
    });
  });

  it("refuses an unknown x-batch-validation mode", async () => {
    await expectRefusedBatch([item(0)], "x-batch-validation", {
      headers: { "x-batch-validation": "lenient" },
    });
  });

  it("refuses an Idempotency-Key header on a batch", async () => {
    await expectRefusedBatch([item(0)], "Idempotency-Key", { headers: { "idempotency-key": "batch-1" } });
  });
});

describe("POST /v1/send/batch: permissive validation", () => {
  it("writes the valid items and answers per-item errors in request order", async () => {
    const before = await counts();
    const items = [
      item(0),
      item(1, { to: "nope" }),
      item(2),
      item(3, { unknown: true }),
      item(4, { idempotencyKey: "bad key" }),
      item(5, { scheduledAt: new Date(Date.now() + HOUR).toISOString() }),
    ];
    const res = await batch(items, { "x-batch-validation": "permissive" });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([
      { index: 0, status: "queued", messageId: expect.any(String) },
      { index: 1, status: "error", error: "validation_error", message: expect.stringContaining("[1].to") },
      { index: 2, status: "queued", messageId: expect.any(String) },
      {
        index: 3,
        status: "error",
        error: "validation_error",
        message: expect.stringContaining("[3].unknown"),
      },
      {
        index: 4,
        status: "error",
        error: "invalid_idempotency_key",
        message: expect.stringContaining("[4].idempotencyKey"),
      },
      { index: 5, status: "scheduled", messageId: expect.any(String) },
    ]);
    expect(await counts()).toMatchObject({ emails: before.emails + 3, jobs: before.jobs + 3 });
    const data = res.json.data as BatchEntry[];
    const to = await recipientsById(data.flatMap((d) => (d.messageId ? [d.messageId] : [])));
    expect([...to.values()].sort()).toEqual([
      "user0@example.test",
      "user2@example.test",
      "user5@example.test",
    ]);
  });

  it("writes nothing and answers 200 with every error when no item is valid", async () => {
    const before = await counts();
    const res = await batch([item(0, { to: "x" }), item(1, { from: "y" })], {
      "x-batch-validation": "permissive",
    });
    expect(res.status).toBe(200);
    expect((res.json.data as BatchEntry[]).map((d) => [d.index, d.status, d.error])).toEqual([
      [0, "error", "validation_error"],
      [1, "error", "validation_error"],
    ]);
    expect(await counts()).toEqual(before);
  });
});

describe("POST /v1/send/batch: per-item idempotency keys", () => {
  it("resolves a key repeated inside one batch to the first item's email", async () => {
    const before = await counts();
    const same = item(1, { idempotencyKey: "in-batch-1" });
    const res = await batch([same, item(2), { ...same }]);
    const data = res.json.data as BatchEntry[];
    expect(data.map((d) => d.status)).toEqual(["queued", "queued", "duplicate"]);
    expect(data[2]?.messageId).toBe(data[0]?.messageId);
    expect(await counts()).toMatchObject({
      emails: before.emails + 2,
      jobs: before.jobs + 2,
      keys: before.keys + 1,
    });
  });

  it("answers duplicate with the original ids when a batch is sent again", async () => {
    const items = [item(1, { idempotencyKey: "across-1" }), item(2, { idempotencyKey: "across-2" }), item(3)];
    const first = await batch(items);
    const before = await counts();
    const again = await batch(items);
    const a = first.json.data as BatchEntry[];
    const b = again.json.data as BatchEntry[];
    expect(b.map((d) => d.status)).toEqual(["duplicate", "duplicate", "queued"]);
    expect(b[0]?.messageId).toBe(a[0]?.messageId);
    expect(b[1]?.messageId).toBe(a[1]?.messageId);
    expect(b[2]?.messageId).not.toBe(a[2]?.messageId);
    expect(await counts()).toMatchObject({ emails: before.emails + 1, keys: before.keys });
  });

  it("shares keys with single sends of the same account", async () => {
    const body = item(9, { idempotencyKey: "single-then-batch" });
    const single = await api.server.app.inject({
      method: "POST",
      url: "/v1/send",
      headers: { authorization: `Bearer ${key}` },
      payload: body,
    });
    const res = await batch([item(8), body]);
    expect((res.json.data as BatchEntry[])[1]).toEqual({
      index: 1,
      status: "duplicate",
      messageId: single.json().messageId,
    });
  });

  it("strict: a key reused with a different body fails the whole batch with 422, writing nothing", async () => {
    await batch([item(1, { idempotencyKey: "mismatch-strict" })]);
    const res = await expectRefusedBatch(
      [item(5), item(6), item(7, { idempotencyKey: "mismatch-strict" })],
      "[2].idempotencyKey",
      { status: 422, code: "idempotency_key_mismatch" },
    );
    expect(res.json.message).toMatch(/different/);
    // Inside one batch too.
    await expectRefusedBatch(
      [item(1, { idempotencyKey: "mismatch-inner" }), item(2, { idempotencyKey: "mismatch-inner" })],
      "[1].idempotencyKey",
      { status: 422, code: "idempotency_key_mismatch" },
    );
  });

  it("permissive: a mismatched key is that item's error; the others are written", async () => {
    await batch([item(1, { idempotencyKey: "mismatch-permissive" })]);
    const before = await counts();
    const res = await batch([item(5), item(6, { idempotencyKey: "mismatch-permissive" }), item(7)], {
      "x-batch-validation": "permissive",
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([
      { index: 0, status: "queued", messageId: expect.any(String) },
      {
        index: 1,
        status: "error",
        error: "idempotency_key_mismatch",
        message: expect.stringContaining("[1].idempotencyKey"),
      },
      { index: 2, status: "queued", messageId: expect.any(String) },
    ]);
    expect(await counts()).toMatchObject({ emails: before.emails + 2, keys: before.keys });
  });
});
