import { listEvents } from "@mailroom/core/emails";
import { createKey, revokeKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>> | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db);
});
afterAll(async () => {
  await worker?.stop();
  await api.close();
  await sink.close();
  await db.drop();
});

async function waitForStatus(
  id: string,
  status: string,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.pool.query("select * from emails where id = $1", [id]);
    if (rows[0]?.status === status) return rows[0];
    if (Date.now() > deadline) throw new Error(`email ${id} is ${rows[0]?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("send → SMTP, end to end", () => {
  it("delivers an accepted email through the worker to a real SMTP server", async () => {
    worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "4" });
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const res = await api.request("POST", "/v1/send", {
      key: fullKey,
      body: {
        from: "Acme Billing <billing@acme.test>",
        to: ["Zoë <zoe@example.test>", "ops@example.test"],
        subject: "Your invoice — №42",
        html: "<p>Total: <b>€10</b></p>",
        text: "Total: €10",
        category: "transactional",
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("queued");
    const id = String(res.json.messageId);
    const row = await waitForStatus(id, "delivered");
    expect(row.recipient_results).toEqual({
      "zoe@example.test": { status: "accepted", code: 250, response: expect.stringMatching(/^250 /) },
      "ops@example.test": { status: "accepted", code: 250, response: expect.stringMatching(/^250 /) },
    });

    const [message] = await sink.waitFor(1);
    if (!message) throw new Error("no message");
    expect(message.envelope.from).toBe("billing@acme.test");
    expect(message.envelope.to.sort()).toEqual(["ops@example.test", "zoe@example.test"]);
    expect(message.parsed.from).toEqual({ name: "Acme Billing", address: "billing@acme.test" });
    expect(message.parsed.to?.map((t) => t.address)).toEqual(["zoe@example.test", "ops@example.test"]);
    expect(message.parsed.to?.[0]?.name).toBe("Zoë");
    expect(message.parsed.subject).toBe("Your invoice — №42");
    expect(message.parsed.messageId).toBe(`<${id}@mailroom.localhost>`);
    expect(message.parsed.html).toContain("<p>Total: <b>€10</b></p>");
    expect(message.parsed.text?.trim()).toBe("Total: €10");
    expect(message.raw.toString()).toMatch(/^Content-Type: multipart\/alternative/im);

    const timeline = (await listEvents(db.pool, id)).map((e) => e.type);
    expect(timeline).toEqual(["queued", "sending", "delivered"]);
  });

  it("answers a repeated idempotencyKey with duplicate and sends once", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const body = {
      from: "hello@acme.test",
      to: "dup@example.test",
      subject: "Once",
      text: "only once",
      idempotencyKey: "order-7-receipt",
    };
    const first = await api.request("POST", "/v1/send", { key: fullKey, body });
    const second = await api.request("POST", "/v1/send", { key: fullKey, body });
    expect(first.json).toEqual({ status: "queued", messageId: expect.any(String) });
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ status: "duplicate", messageId: first.json.messageId });
    const viaHeader = await api.request("POST", "/v1/send", {
      key: fullKey,
      body: { ...body, idempotencyKey: undefined },
      headers: { "idempotency-key": "order-7-receipt" },
    });
    expect(viaHeader.json).toEqual({ status: "duplicate", messageId: first.json.messageId });
    const changed = await api.request("POST", "/v1/send", {
      key: fullKey,
      body: { ...body, text: "changed" },
    });
    expect(changed.status).toBe(422);
    expect(changed.json.error).toBe("idempotency_key_mismatch");

    await waitForStatus(String(first.json.messageId), "delivered");
    const { rows } = await db.pool.query("select count(*)::int as n from emails where to_addresses = $1", [
      ["dup@example.test"],
    ]);
    expect(rows[0]?.n).toBe(1);
    expect(sink.messages.filter((m) => m.envelope.to.includes("dup@example.test"))).toHaveLength(1);
  });

  it("fails queued mail of a revoked key with api_key_revoked and never sends it", async () => {
    await worker?.stop();
    worker = undefined;
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "never",
    });
    const res = await api.request("POST", "/v1/send", {
      key: fullKey,
      body: { from: "hello@acme.test", to: "revoked@example.test", subject: "Never", text: "never sent" },
    });
    const id = String(res.json.messageId);
    await revokeKey(db.pool, key.keyId);
    const next = await api.request("POST", "/v1/send", {
      key: fullKey,
      body: { from: "hello@acme.test", to: "revoked@example.test", subject: "Never", text: "never sent" },
    });
    expect(next.status).toBe(401);
    expect(next.json.error).toBe("api_key_revoked");

    worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "4" });
    const row = await waitForStatus(id, "failed");
    expect(row.failure_reason).toBe("api_key_revoked");
    // The job ran (or was skipped) without an SMTP handover.
    await new Promise((r) => setTimeout(r, 500));
    expect(sink.messages.some((m) => m.envelope.to.includes("revoked@example.test"))).toBe(false);
    expect((await listEvents(db.pool, id)).map((e) => e.type)).toEqual(["queued", "failed"]);
  });
});
