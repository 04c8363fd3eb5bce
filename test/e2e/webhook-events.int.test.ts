import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const LOOPBACK = { MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8" };

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let receiver: WebhookReceiver;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  receiver = await startWebhookReceiver();
  api = await startApiStack(db, { env: LOOPBACK });
});
afterAll(async () => {
  await api.close();
  await receiver.close();
  await sink.close();
  await db.drop();
});

describe("email transitions as signed webhook events", () => {
  it("delivers queued then delivered (or bounced), signed, in order per email", async () => {
    const key = (
      await createKey(db.pool, { account: "hooks", scopes: ["send", "webhooks"], expires: "never" })
    ).fullKey;
    const endpoint = await api.request("POST", "/v1/webhooks", {
      key,
      body: { url: `${receiver.origin}/hooks`, events: ["email.queued", "email.delivered", "email.bounced"] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    receiver.setSecrets(String(endpoint.json.secret));
    sink.answer = (rcpt) =>
      rcpt.startsWith("gone") ? { code: 550, message: "5.1.1 no such user" } : { code: 250 };

    const ok = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: "a@acme.test",
        to: "ok@example.test",
        subject: "hello",
        text: "t",
        tags: [{ name: "k", value: "v" }],
      },
    });
    const gone = await api.request("POST", "/v1/send", {
      key,
      body: { from: "a@acme.test", to: "gone@example.test", subject: "bye", text: "t" },
    });
    // Another account's email never reaches this endpoint.
    const stranger = (await createKey(db.pool, { account: "other", scopes: ["send"], expires: "never" }))
      .fullKey;
    await api.request("POST", "/v1/send", {
      key: stranger,
      body: { from: "a@acme.test", to: "x@example.test", subject: "x", text: "t" },
    });

    expect([ok.status, gone.status]).toEqual([200, 200]);
    const worker = await startWorkerStack(db, sink.url, { ...LOOPBACK, MAILROOM_WORKER_CONCURRENCY: "4" });
    try {
      const events = await receiver.waitFor(4, 15_000);
      for (const e of events) expect(e.verifiedWith.length).toBeGreaterThan(0);
      const of = (id: unknown) =>
        events.filter((e) => e.payload?.data.emailId === id).map((e) => e.payload?.type);
      expect(of(ok.json.messageId)).toEqual(["email.queued", "email.delivered"]);
      expect(of(gone.json.messageId)).toEqual(["email.queued", "email.bounced"]);
      const delivered = events.find((e) => e.payload?.type === "email.delivered");
      expect(delivered?.payload?.data).toMatchObject({
        emailId: ok.json.messageId,
        from: "a@acme.test",
        to: ["ok@example.test"],
        subject: "hello",
        tags: [{ name: "k", value: "v" }],
      });
      const bounced = events.find((e) => e.payload?.type === "email.bounced");
      expect(String(bounced?.payload?.data.response)).toContain("550");
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).toHaveLength(4);
    } finally {
      await worker.stop();
    }
  });
});
