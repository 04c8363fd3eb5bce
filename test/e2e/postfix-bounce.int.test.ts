import { createKey } from "@mailroom/core/keys";
import { createLogger } from "@mailroom/core/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InboundReceiver, startInboundReceiver } from "../../smtp/src/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer, type ZoneRecord } from "../support/dns-server.ts";
import { type PostfixRelay, postfixUnavailable, startPostfixRelay } from "../support/postfix-relay.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

// The "done when": Mailroom hands a message to a relay (Debian's Postfix), the relay accepts it (the
// email is `delivered`), the recipient's server then refuses it, and the DSN Postfix itself writes comes back
// over SMTP to the bounce receiver: the email ends `bounced` with the remote diagnostic, the address is
// suppressed and a signed `email.bounced` is delivered.
const unavailable = postfixUnavailable();
if (unavailable) console.warn(`skipping the Postfix bounce test: ${unavailable}`);

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let hooks: WebhookReceiver;
let inbound: InboundReceiver;
let postfix: PostfixRelay;
let api: ApiStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let key: string;

describe.skipIf(unavailable)("a bounce written by Postfix after it accepted the message", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    dns = await startDnsServer();
    sink = await startSmtpSink();
    sink.answer = (rcpt) =>
      rcpt.startsWith("gone@")
        ? { code: 550, message: "5.1.1 <gone@customer.test>: User unknown" }
        : { code: 250 };
    hooks = await startWebhookReceiver();
    inbound = await startInboundReceiver(
      { pool: db.pool, logger: createLogger({ level: "silent", name: "test" }) },
      { host: "127.0.0.1", port: 0, hostname: "mx.mailroom.test", maxBytes: 1024 * 1024 },
    );
    postfix = await startPostfixRelay({
      sinkPort: sink.port,
      bounceDomains: ["bounces.shop.test"],
      receiverPort: inbound.port,
    });
    const env = {
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_ALLOW_UNVERIFIED_FROM: "false",
      MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
      MAILROOM_INBOUND_MX_HOST: "mx.mailroom.test",
    };
    api = await startApiStack(db, { env });
    worker = await startWorkerStack(db, postfix.url, env);
    key = (
      await createKey(db.pool, { account: "shop", scopes: ["send", "domains", "webhooks"], expires: "never" })
    ).fullKey;
    const created = await api.request("POST", "/v1/domains", { key, body: { name: "shop.test" } });
    const byName = new Map<string, ZoneRecord[]>();
    for (const r of created.json.records as {
      name: string;
      type: string;
      value: string;
      strings: string[];
    }[]) {
      const [priority = "", exchange = ""] = r.value.split(" ");
      const record: ZoneRecord =
        r.type === "MX"
          ? { type: "MX", priority: Number(priority), exchange }
          : { type: "TXT", strings: r.strings };
      byName.set(r.name, [...(byName.get(r.name) ?? []), record]);
    }
    for (const [name, records] of byName) dns.setRecords(name, records);
    const verified = await api.request("POST", "/v1/domains/shop.test/verify", { key });
    expect(verified.json.status).toBe("verified");
    const endpoint = await api.request("POST", "/v1/webhooks", {
      key,
      body: { url: `${hooks.origin}/hooks`, events: ["email.bounced"] },
    });
    hooks.setSecrets(String(endpoint.json.secret));
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await postfix?.stop();
    await inbound?.close();
    await hooks?.close();
    await sink?.close();
    await dns?.close();
    await db?.drop();
  });

  it("ends bounced with Postfix's diagnostic, suppressed, with a signed email.bounced", async () => {
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: "Orders <orders@shop.test>",
        to: "gone@customer.test",
        subject: "Your order",
        text: "Thanks.",
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const id = String(sent.json.messageId);
    const read = async () =>
      (await api.request("GET", `/v1/emails/${id}`, { key })).json as {
        status: string;
        events: { type: string; detail: Record<string, unknown> }[];
      };
    const final = await until(read, (e) => e.status === "bounced", 60_000);
    expect(final.status, `email ${final.status}; Postfix log:\n${postfix.log().slice(-3000)}`).toBe(
      "bounced",
    );
    // Postfix accepted it first: delivered, then bounced by the report.
    expect(final.events.map((e) => e.type)).toContain("delivered");
    const bounced = final.events.at(-1);
    expect(bounced).toMatchObject({
      type: "bounced",
      detail: { recipient: "gone@customer.test", status: "5.1.1", format: "dsn", later: true },
    });
    expect(String(bounced?.detail.response)).toContain("550 5.1.1");
    expect(String(bounced?.detail.reportingMta)).toBe("relay.postfix.test");

    const suppression = await api.request("GET", "/v1/suppressions/gone%40customer.test", { key });
    expect(suppression.json).toMatchObject({ reason: "hard_bounce", sourceEmailId: id });
    const [hook] = await hooks.waitFor(1, 30_000);
    expect(hook?.verifiedWith.length).toBe(1);
    expect(hook?.payload).toMatchObject({
      type: "email.bounced",
      data: { emailId: id, recipient: "gone@customer.test" },
    });
  });
});
