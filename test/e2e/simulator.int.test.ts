import { appendFileSync } from "node:fs";
import { getReportOutcome } from "@mailroom/core/bounces";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { publishAndVerify } from "../support/domains.ts";
import { runGuardThroughNow } from "../support/reputation.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

// The mailbox simulator end to end (issue 30 item 3, ADR 0049): the API accepts, the real worker delivers,
// simulated reports go through the bounce receiver's processing, and a webhook receiver checking Standard
// Webhooks signatures (the reference library) sees the events. The relay is a real SMTP sink that must stay
// empty of simulator mail; the DNS server used for everything must never be asked about the simulator domain.
const SIM = "simulator.mailroom.invalid";

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let hooks: WebhookReceiver;
let api: ApiStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  hooks = await startWebhookReceiver();
  const env = {
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_ALLOW_UNVERIFIED_FROM: "false",
    MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
    MAILROOM_INBOUND_MX_HOST: "mx.mailroom.test",
  };
  api = await startApiStack(db, { env });
  worker = await startWorkerStack(db, sink.url, env);
  key = (
    await createKey(db.pool, { account: "shop", scopes: ["send", "domains", "webhooks"], expires: "never" })
  ).fullKey;
  // A verified domain, as for real mail: its VERP Return-Path is where the simulator's reports go.
  await publishAndVerify(api, dns, key, "shop.test");
  const endpoint = await api.request("POST", "/v1/webhooks", {
    key,
    body: {
      url: `${hooks.origin}/hooks`,
      events: [
        "email.queued",
        "email.delivered",
        "email.deferred",
        "email.bounced",
        "email.failed",
        "email.complained",
      ],
    },
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  hooks.setSecrets(String(endpoint.json.secret));
}, 60_000);
afterAll(async () => {
  // Nothing addressed to the simulator ever reached SMTP or DNS.
  expect(sink.messages.flatMap((m) => m.envelope.to).filter((r) => r.endsWith(`@${SIM}`))).toEqual([]);
  expect(dns.queryCount(SIM)).toBe(0);
  await worker?.stop();
  await api?.close();
  await hooks?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

/** Adds the domain, publishes what the API says (TXT records, the bounce domain's MX), verifies it. */

interface Email {
  status: string;
  failureReason?: string | null;
  events: { type: string; detail: Record<string, unknown> }[];
}

const email = async (id: string) =>
  (await api.request("GET", `/v1/emails/${id}`, { key })).json as unknown as Email;

/** The signed webhook events of one email, in arrival order. */
const hooksOf = (id: string) => hooks.received.filter((h) => h.payload?.data.emailId === id);

/**
 * Sends to `to` and waits for the webhook types `expected` of that email. Notes (never asserts) the time from
 * the send call to seeing the last event at the receiver, within the 25 ms of `until`'s polling.
 */
async function send(to: string | string[], expected: string[]) {
  const sentAt = performance.now();
  const sent = await api.request("POST", "/v1/send", {
    key,
    body: { from: "Shop <orders@shop.test>", to, subject: `Simulated for ${to}`, text: "Hello." },
  });
  expect(sent.status, sent.text).toBe(200);
  const id = String(sent.json.messageId);
  const got = await until(
    async () => hooksOf(id),
    (h) => h.length >= expected.length,
    20_000,
  );
  const seenAt = performance.now();
  for (const h of got) expect(h.verifiedWith).toHaveLength(1);
  expect(got.map((h) => h.payload?.type)).toEqual(expected);
  figures.push(`${String(to).padEnd(48)} ${(seenAt - sentAt).toFixed(0)} ms`);
  return { id, hooks: got };
}

const figures: string[] = [];

async function suppression(address: string) {
  const res = await api.request("GET", `/v1/suppressions/${encodeURIComponent(address)}`, { key });
  return res.status === 200 ? (res.json as { reason: string; sourceEmailId: string | null }) : undefined;
}

/** The email log's `simulated`, as the API shows it. */
async function simulated(id: string) {
  return (await api.request("GET", `/v1/emails/${id}`, { key })).json.simulated;
}

describe("the mailbox simulator", () => {
  it("delivered@ is delivered, marked simulated, and never reaches the relay", async () => {
    const { id } = await send(`delivered@${SIM}`, ["email.queued", "email.delivered"]);
    const after = await email(id);
    expect(after.status).toBe("delivered");
    expect(after.events.map((e) => e.type)).toEqual(["queued", "sending", "delivered"]);
    expect(await simulated(id)).toBe(true);
  });

  it("bounced@ is accepted, then its DSN bounces it through the report processing and suppresses it", async () => {
    const to = `bounced+order-1@${SIM}`;
    const { id, hooks: got } = await send(to, ["email.queued", "email.delivered", "email.bounced"]);
    expect(got.at(-1)?.payload?.data).toMatchObject({ emailId: id, recipient: to, status: "5.1.1" });
    const after = await email(id);
    expect(after.status).toBe("bounced");
    expect(after.events.at(-1)).toMatchObject({ type: "bounced", detail: { recipient: to, later: true } });
    expect(String(after.events.at(-1)?.detail.response)).toContain("User unknown");
    expect(await suppression(to)).toMatchObject({ reason: "hard_bounce", sourceEmailId: id });
    // The report is stored like any other, from the simulator, and was matched by its VERP token.
    const { rows } = await db.pool.query<{ id: string }>(
      "select id from inbound_reports where remote_address = 'mailbox-simulator' and outcome->>'emailId' = $1",
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(await getReportOutcome(db.pool, String(rows[0]?.id))).toMatchObject({
      status: "processed",
      outcome: { kind: "bounce", format: "dsn", via: "verp", reporter: to },
    });
  });

  it("two bounced@ copies of one email bounce each through its own VERP token; delivered@ beside them stays", async () => {
    const one = `bounced+one@${SIM}`;
    const two = `bounced+two@${SIM}`;
    const kept = `delivered+kept@${SIM}`;
    const { id } = await send(
      [one, two, kept],
      ["email.queued", "email.delivered", "email.bounced", "email.bounced"],
    );
    const bounced = hooksOf(id)
      .filter((h) => h.payload?.type === "email.bounced")
      .map((h) => h.payload?.data.recipient);
    expect(bounced.sort()).toEqual([one, two]);
    // One recipient is still delivered: the email stays delivered, as with a real mixed outcome.
    expect((await email(id)).status).toBe("delivered");
    expect(await suppression(kept)).toBeUndefined();
  });

  it("soft-bounced@ is deferred with a 4xx, then delivered on the short retry", async () => {
    const { id, hooks: got } = await send(`soft-bounced@${SIM}`, [
      "email.queued",
      "email.deferred",
      "email.delivered",
    ]);
    expect(String(got[1]?.payload?.data.response)).toContain("451 4.2.0");
    const after = await email(id);
    expect(after.status).toBe("delivered");
    expect(after.events.map((e) => e.type)).toEqual([
      "queued",
      "sending",
      "deferred",
      "sending",
      "delivered",
    ]);
    expect(await suppression(`soft-bounced@${SIM}`)).toBeUndefined();
  });

  it("complained@ is delivered, then its ARF report records the complaint and suppresses it", async () => {
    const to = `complained@${SIM}`;
    const { id, hooks: got } = await send(to, ["email.queued", "email.delivered", "email.complained"]);
    expect(got.at(-1)?.payload?.data).toMatchObject({ emailId: id, recipient: to });
    const after = await email(id);
    expect(after.status).toBe("delivered");
    expect(after.events.at(-1)).toMatchObject({
      type: "complained",
      detail: { recipient: to, feedbackType: "abuse" },
    });
    expect(await suppression(to)).toMatchObject({ reason: "complaint", sourceEmailId: id });
  });

  it("out-of-office@ is delivered; its auto-reply reaches the report processing and is no bounce", async () => {
    const to = `out-of-office@${SIM}`;
    const { id } = await send(to, ["email.queued", "email.delivered"]);
    const report = await until(
      async () =>
        (
          await db.pool.query<{ status: string; raw: Buffer }>(
            `select status, raw from inbound_reports
             where remote_address = 'mailbox-simulator' and position($1::bytea in raw) > 0`,
            [Buffer.from(to)],
          )
        ).rows[0],
      (r) => r !== undefined && r.status !== "received",
      20_000,
    );
    expect(report?.status).toBe("ignored");
    expect(report?.raw.toString()).toContain("Auto-Submitted: auto-replied");
    const after = await email(id);
    expect(after.status).toBe("delivered");
    expect(after.events.map((e) => e.type)).toEqual(["queued", "sending", "delivered"]);
    expect(await suppression(to)).toBeUndefined();
    expect(hooksOf(id).map((h) => h.payload?.type)).toEqual(["email.queued", "email.delivered"]);
  });

  it("suppressed@ is on the list already: the send fails as suppressed, as a real suppressed address does", async () => {
    const to = `suppressed+a@${SIM}`;
    const { id, hooks: got } = await send(to, ["email.queued", "email.failed"]);
    expect(got.at(-1)?.payload?.data).toMatchObject({ emailId: id, reason: "suppressed" });
    const after = await email(id);
    expect(after.status).toBe("failed");
    expect(await suppression(to)).toMatchObject({ reason: "manual" });
  });

  it("delayed@ answers 250 slowly and is delivered", async () => {
    const { id, hooks: got } = await send(`delayed@${SIM}`, ["email.queued", "email.delivered"]);
    expect(String(got.at(-1)?.payload?.data.response)).toContain("slow answer");
    expect((await email(id)).status).toBe("delivered");
  });

  it("an unknown local part is delivered as delivered@, and says so", async () => {
    const { id, hooks: got } = await send(`nobody@${SIM}`, ["email.queued", "email.delivered"]);
    expect(String(got.at(-1)?.payload?.data.response)).toContain("delivered as delivered@");
    expect((await email(id)).status).toBe("delivered");
  });

  it("mail mixing a simulator address with a real one: the real one reaches the relay, and it is real mail", async () => {
    const { id } = await send(
      ["real@customer.test", `delivered@${SIM}`],
      ["email.queued", "email.delivered"],
    );
    const message = sink.messages.find((m) => m.envelope.to.includes("real@customer.test"));
    expect(message?.envelope.to).toEqual(["real@customer.test"]);
    expect(await simulated(id)).toBe(false);
  });

  it("none of it counts toward the account's reputation: only the mixed email's real delivery is counted", async () => {
    // Runs last in this file: every simulated bounce, complaint and delivery above is in the timeline by now.
    await runGuardThroughNow(db.pool);
    const { rows } = await db.pool.query<{ delivered: string; bounced: string; complained: string }>(
      `select coalesce(sum(delivered), 0) as delivered, coalesce(sum(bounced), 0) as bounced,
              coalesce(sum(complained), 0) as complained
       from reputation_counters where account = 'shop'`,
    );
    expect(rows[0]).toEqual({ delivered: "1", bounced: "0", complained: "0" });
  });

  afterAll(() => {
    // Figures for the report, not assertions (no timed assertions on a shared machine).
    const out = process.env.MAILROOM_SIMULATOR_FIGURES;
    if (out) appendFileSync(out, `${figures.join("\n")}\n`);
  });
});
