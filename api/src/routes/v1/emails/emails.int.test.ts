import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { type SmtpSink, startSmtpSink } from "../../../../../test/support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../../../../../test/support/stack.ts";
import { until } from "../../../../../test/support/wait.ts";

let db: TestDatabase;
let api: ApiStack;
let key: string;
let otherKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db);
  key = (await createKey(db.pool, { account: "team-a", scopes: ["send"], expires: "never" })).fullKey;
  otherKey = (await createKey(db.pool, { account: "team-b", scopes: ["send"], expires: "never" })).fullKey;
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

async function send(body: Record<string, unknown>, k = key) {
  const res = await api.request("POST", "/v1/send", {
    key: k,
    body: { from: "Acme <hello@acme.test>", to: "a@example.test", subject: "s", text: "t", ...body },
  });
  expect(res.status, res.text).toBe(200);
  return String(res.json.messageId);
}

async function jobRunAt(id: string): Promise<Date | undefined> {
  const { rows } = await db.pool.query<{ run_at: Date }>(
    "select run_at from graphile_worker._private_jobs where key = $1",
    [`deliver:${id}`],
  );
  return rows[0]?.run_at;
}

describe("email log", () => {
  it("pages through an account's emails newest first with a stable cursor", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 25; i++)
      ids.push(await send({ subject: `page ${i}`, tags: [{ name: "run", value: "paging" }] }));
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await api.request(
        "GET",
        `/v1/emails?limit=10&tag=run:paging${after ? `&after=${after}` : ""}`,
        {
          key,
        },
      );
      expect(res.status).toBe(200);
      const data = res.json.data as Array<{ id: string }>;
      seen.push(...data.map((e) => e.id));
      after = data.at(-1)?.id;
      if (!res.json.hasMore) break;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it("filters by status, recipient, sender, category, tag and time", async () => {
    const start = new Date().toISOString();
    const a = await send({
      to: "filter-me@example.test",
      category: "receipts",
      tags: [{ name: "plan", value: "pro" }],
    });
    await send({ from: "other@acme.test", category: "alerts" });
    const q = async (query: string) =>
      ((await api.request("GET", `/v1/emails?${query}`, { key })).json.data as Array<{ id: string }>).map(
        (e) => e.id,
      );
    expect(await q("to=filter-me@example.test")).toEqual([a]);
    expect(await q(`category=receipts&since=${encodeURIComponent(start)}`)).toEqual([a]);
    expect(await q("tag=plan:pro")).toEqual([a]);
    expect((await q("from=other@acme.test")).length).toBe(1);
    expect(await q(`status=queued&since=${encodeURIComponent(start)}`)).toHaveLength(2);
    expect(await q(`until=${encodeURIComponent(start)}&to=filter-me@example.test`)).toEqual([]);
    for (const bad of [
      "limit=0",
      "limit=101",
      "limit=abc",
      "status=lost",
      "after=nope",
      "since=yesterday",
      "x=1",
    ]) {
      const res = await api.request("GET", `/v1/emails?${bad}`, { key });
      expect(res.status, bad).toBe(400);
      expect(res.json.error).toBe("validation_error");
    }
  });

  it("shows one email with its timeline, and hides other accounts' emails", async () => {
    const id = await send({ html: "<p>hi</p>", headers: { "X-Order": "7" } });
    const res = await api.request("GET", `/v1/emails/${id}`, { key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id,
      status: "queued",
      html: "<p>hi</p>",
      text: "t",
      headers: { "X-Order": "7" },
      events: [{ type: "queued", at: expect.any(String), detail: {} }],
    });
    for (const [method, path] of [
      ["GET", `/v1/emails/${id}`],
      ["POST", `/v1/emails/${id}/cancel`],
    ] as const) {
      const other = await api.request(method, path, { key: otherKey });
      expect(other.status).toBe(404);
      expect(other.json.error).toBe("not_found");
    }
    const patched = await api.request("PATCH", `/v1/emails/${id}`, {
      key: otherKey,
      body: { scheduledAt: inMinutes(5) },
    });
    expect(patched.status).toBe(404);
    expect((await api.request("GET", "/v1/emails/not-a-uuid", { key })).status).toBe(404);
  });

  it("answers only the documented fields, with dates in RFC 3339 (the route hands its core record over whole)", async () => {
    const id = await send({
      scheduledAt: inMinutes(30),
      attachments: [{ filename: "a.txt", content: "aGk=" }],
    });
    const internal = ["account", "apiKeyId", "fromAddress", "recipientResults"];
    const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    const detail = await api.request("GET", `/v1/emails/${id}`, { key });
    expect(detail.status, detail.text).toBe(200);
    for (const field of internal) expect(Object.keys(detail.json), field).not.toContain(field);
    expect(detail.json.scheduledAt).toMatch(iso);
    expect(detail.json.createdAt).toMatch(iso);
    expect(detail.json.attachments).toEqual([
      { filename: "a.txt", contentType: "application/octet-stream", contentId: null, size: 2 },
    ]);
    expect((detail.json.events as Array<{ at: string }>)[0]?.at).toMatch(iso);
    const listed = await api.request("GET", "/v1/emails?limit=1", { key });
    const first = (listed.json.data as Array<Record<string, unknown>>)[0] ?? {};
    for (const field of [...internal, "html", "events"])
      expect(Object.keys(first), field).not.toContain(field);
    expect(first.updatedAt).toMatch(iso);
    const canceled = await api.request("POST", `/v1/emails/${id}/cancel`, { key });
    expect(canceled.json.status).toBe("canceled");
    for (const field of internal) expect(Object.keys(canceled.json), field).not.toContain(field);
  });

  it("searches with q (subject words, addresses of the sender and every recipient, Message-ID, tag); a bad q is a 400", async () => {
    const id = await send({ subject: "Quarterly statement ready", to: "zed@search.test" });
    await send({ subject: "Quarterly statement ready" }, otherKey);
    const found = async (q: string) => {
      const res = await api.request("GET", `/v1/emails?q=${encodeURIComponent(q)}`, { key });
      expect(res.status, res.text).toBe(200);
      return (res.json.data as Array<{ id: string }>).map((e) => e.id);
    };
    expect(await found("quarterly stat")).toEqual([id]);
    expect(await found("zed@search")).toEqual([id]);
    expect(await found(`<${id}@localhost>`)).toEqual([id]);
    // A Cc or Bcc recipient is a recipient: found by the start of the address, as a `to` is.
    const copied = await send({
      to: "main@copies.test",
      cc: ["Cecile@Copies.test"],
      bcc: "blind@copies.test",
    });
    expect(await found("cecile@copies")).toEqual([copied]);
    expect(await found("blind@")).toEqual([copied]);
    for (const q of ["", "a b c d e", "x".repeat(201)]) {
      const res = await api.request("GET", `/v1/emails?q=${encodeURIComponent(q)}`, { key });
      expect(res.status, q).toBe(400);
      expect(res.json.error, q).toBe("validation_error");
    }
  });

  it("needs the send scope", async () => {
    const domainsOnly = (
      await createKey(db.pool, { account: "team-a", scopes: ["domains"], expires: "never" })
    ).fullKey;
    const res = await api.request("GET", "/v1/emails", { key: domainsOnly });
    expect(res.status).toBe(403);
    expect(res.json.error).toBe("insufficient_scope");
  });
});

describe("scheduling", () => {
  it("answers scheduled, and cancel removes the job; a canceled email cannot be rescheduled", async () => {
    const res = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: "a@acme.test",
        to: "b@example.test",
        subject: "later",
        text: "t",
        scheduledAt: inMinutes(60),
      },
    });
    expect(res.json.status).toBe("scheduled");
    const id = String(res.json.messageId);
    expect((await jobRunAt(id))?.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);

    const moved = await api.request("PATCH", `/v1/emails/${id}`, {
      key,
      body: { scheduledAt: inMinutes(120) },
    });
    expect(moved.status).toBe(200);
    expect(moved.json.status).toBe("scheduled");
    expect((await jobRunAt(id))?.getTime()).toBeGreaterThan(Date.now() + 119 * 60_000);

    const canceled = await api.request("POST", `/v1/emails/${id}/cancel`, { key });
    expect(canceled.json.status).toBe("canceled");
    expect(await jobRunAt(id)).toBeUndefined();
    const again = await api.request("PATCH", `/v1/emails/${id}`, {
      key,
      body: { scheduledAt: inMinutes(5) },
    });
    expect(again.status).toBe(409);
    expect(again.json.error).toBe("conflict");
    const detail = await api.request("GET", `/v1/emails/${id}`, { key });
    expect((detail.json.events as Array<{ type: string }>).map((e) => e.type)).toEqual([
      "scheduled",
      "rescheduled",
      "canceled",
    ]);
  });

  it("refuses past and too-distant times", async () => {
    for (const scheduledAt of [inMinutes(-1), inMinutes(31 * 24 * 60), "tomorrow", "2030-01-01T09:00:00"]) {
      const res = await api.request("POST", "/v1/send", {
        key,
        body: { from: "a@acme.test", to: "b@example.test", subject: "s", text: "t", scheduledAt },
      });
      expect(res.status, scheduledAt).toBe(400);
      expect(res.json.message).toContain("scheduledAt");
    }
  });

  it("sends a scheduled email at its time, not before", async () => {
    let sink: SmtpSink | undefined;
    let worker: Awaited<ReturnType<typeof startWorkerStack>> | undefined;
    try {
      sink = await startSmtpSink();
      worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "2" });
      // Far enough ahead that a slow answer on a busy machine is not refused as a time in the past.
      const at = new Date(Date.now() + 5_000);
      const res = await api.request("POST", "/v1/send", {
        key,
        body: {
          from: "a@acme.test",
          to: "timed@example.test",
          subject: "timed",
          text: "t",
          scheduledAt: at.toISOString(),
        },
      });
      expect(res.json.status).toBe("scheduled");
      // Not before its time: the sink stamps when it took the message, so a look a moment after the send
      // (which a slow request could already have passed `at` by) is not needed to prove it.
      const timed = await until(
        async () => sink?.messages.find((m) => m.envelope.to.includes("timed@example.test")),
        (message) => message !== undefined,
        20_000,
      );
      expect(timed?.parsed.subject).toBe("timed");
      expect(timed?.receivedAt).toBeGreaterThanOrEqual(at.getTime());
    } finally {
      await worker?.stop();
      await sink?.close();
    }
  });
});
