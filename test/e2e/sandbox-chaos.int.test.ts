import { listEvents } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";

/**
 * Issue 30 item 4: chaos rules of a sandbox inbox make the capture answer as a failing server would, so the
 * real retry plan, bounces, suppressions, timeline and webhook events follow; they touch no other account's
 * mail and no live mail.
 */

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db, { env: { MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8" } });
  // Retries a fraction of a second apart, so a deferred email's next attempt comes within the test.
  worker = await startWorkerStack(db, sink.url, { MAILROOM_RETRY_BASE_SECONDS: "0.2" });
  key = (
    await createKey(db.pool, {
      account: "qa",
      scopes: ["send", "webhooks"],
      expires: "never",
      mode: "sandbox",
    })
  ).fullKey;
  // An endpoint, so the account's email.* events are written (delivery to it is not what is tested).
  const hook = await api.request("POST", "/v1/webhooks", { key, body: { url: "http://127.0.0.1:9/hook" } });
  expect(hook.status, hook.text).toBe(201);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await sink?.close();
  await db?.drop();
});

const chaos = (k: string, rules: object[]) =>
  api.request("PUT", "/v1/dev-inbox/chaos", { key: k, body: { rules } });

async function send(k: string, to: string, subject: string): Promise<string> {
  const res = await api.request("POST", "/v1/send", {
    key: k,
    body: { from: "app@qa.test", to, subject, text: "x" },
  });
  expect(res.status, res.text).toBe(200);
  return String(res.json.messageId);
}

const row = async (id: string) =>
  (
    await db.pool.query<{
      status: string;
      attempts: number;
      recipient_results: Record<string, { code: number | null; status: string }>;
    }>("select status, attempts, recipient_results from emails where id = $1", [id])
  ).rows[0];

const untilStatus = (id: string, statuses: string[]) =>
  until(
    () => row(id),
    (r) => statuses.includes(r?.status ?? ""),
    20_000,
  );

const webhookTypes = async (id: string) =>
  (
    await db.pool.query<{ type: string }>(
      "select type from webhook_events where data->>'emailId' = $1 order by seq",
      [id],
    )
  ).rows.map((r) => r.type);

const captured = async (k: string, to: string) =>
  (await api.request("GET", `/v1/dev-inbox/messages?to=${encodeURIComponent(to)}`, { key: k })).json
    .data as unknown[];

describe("chaos rules of a sandbox inbox", () => {
  it("a 4xx at RCPT defers the email with a real retry; once the rule is gone the retry delivers it", async () => {
    expect(
      (await chaos(key, [{ recipient: "flaky@example.test", at: "rcpt", action: "reply", code: 451 }]))
        .status,
    ).toBe(200);
    const id = await send(key, "flaky@example.test", "flaky");
    const deferred = await untilStatus(id, ["deferred", "delivered"]);
    expect(deferred?.status).toBe("deferred");
    expect(deferred?.recipient_results["flaky@example.test"]).toMatchObject({
      status: "temporary",
      code: 451,
    });
    expect(await captured(key, "flaky@example.test")).toEqual([]);
    expect((await chaos(key, [])).json).toEqual({ rules: [] });
    const delivered = await untilStatus(id, ["delivered"]);
    expect(delivered?.attempts).toBeGreaterThanOrEqual(2);
    expect(await captured(key, "flaky@example.test")).toHaveLength(1);
    const timeline = (await listEvents(db.pool, id)).map((e) => e.type);
    expect(timeline.slice(0, 3)).toEqual(["queued", "sending", "deferred"]);
    expect(timeline.at(-1)).toBe("delivered");
    expect(await webhookTypes(id)).toEqual(expect.arrayContaining(["email.deferred", "email.delivered"]));
  });

  it("a 5xx at DATA bounces the email and suppresses the address, as a real refusal does", async () => {
    await chaos(key, [{ recipient: "@bouncy.test", at: "data", action: "reply", code: 554 }]);
    const id = await send(key, "x@bouncy.test", "bouncy");
    const bounced = await untilStatus(id, ["bounced", "delivered"]);
    expect(bounced?.status).toBe("bounced");
    expect(bounced?.recipient_results["x@bouncy.test"]).toMatchObject({ status: "permanent", code: 554 });
    const suppressed = await api.request("GET", "/v1/suppressions/x%40bouncy.test", { key: await sendKey() });
    expect(suppressed.status, suppressed.text).toBe(200);
    expect(await webhookTypes(id)).toContain("email.bounced");
    await chaos(key, []);
  });

  it("a dropped connection is a temporary failure without a reply code", async () => {
    await chaos(key, [{ recipient: "dropped@example.test", at: "data", action: "drop" }]);
    const id = await send(key, "dropped@example.test", "dropped");
    const deferred = await untilStatus(id, ["deferred", "delivered"]);
    expect(deferred?.status).toBe("deferred");
    expect(deferred?.recipient_results["dropped@example.test"]).toMatchObject({
      status: "temporary",
      code: null,
    });
    await chaos(key, []);
    expect((await untilStatus(id, ["delivered"]))?.status).toBe("delivered");
  });

  it("touches neither another account's sandbox mail nor live mail", async () => {
    await chaos(key, [{ at: "rcpt", action: "reply", code: 550 }]);
    const otherSandbox = (
      await createKey(db.pool, { account: "other", scopes: ["send"], expires: "never", mode: "sandbox" })
    ).fullKey;
    const live = (await createKey(db.pool, { account: "qa", scopes: ["send"], expires: "never" })).fullKey;
    expect((await api.request("GET", "/v1/dev-inbox/chaos", { key: otherSandbox })).json).toEqual({
      rules: [],
    });
    const a = await send(otherSandbox, "calm@example.test", "other account");
    const b = await send(live, "calm@example.test", "live mail");
    expect((await untilStatus(a, ["delivered", "bounced"]))?.status).toBe("delivered");
    expect((await untilStatus(b, ["delivered", "bounced"]))?.status).toBe("delivered");
    expect(sink.messages.map((m) => m.parsed.subject)).toEqual(["live mail"]);
    await chaos(key, []);
  });

  it("refuses malformed rules with validation_error, and keeps the rules it had", async () => {
    const rules = [{ at: "rcpt", action: "slow", delaySeconds: 2 }];
    await chaos(key, rules);
    for (const bad of [
      [{ at: "rcpt", action: "reply" }],
      [{ at: "rcpt", action: "reply", code: 250 }],
      [{ at: "helo", action: "drop" }],
      [{ at: "rcpt", action: "drop", share: 0 }],
      [{ at: "rcpt", action: "slow", delaySeconds: 31 }],
      [{ at: "rcpt", action: "drop", extra: true }],
    ]) {
      const res = await chaos(key, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.error).toBe("validation_error");
    }
    expect((await api.request("GET", "/v1/dev-inbox/chaos", { key })).json).toEqual({
      rules: [{ at: "rcpt", action: "slow", delaySeconds: 2, share: 1 }],
    });
    await chaos(key, []);
  });
});

async function sendKey(): Promise<string> {
  return (await createKey(db.pool, { account: "qa", scopes: ["send"], expires: "never" })).fullKey;
}
