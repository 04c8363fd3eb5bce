import { deriveVerpKey, getReportOutcome, readVerpAddress, verpAddress } from "@mailroom/core/bounces";
import { createKey } from "@mailroom/core/keys";
import { createLogger } from "@mailroom/core/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InboundReceiver, startInboundReceiver } from "../../smtp/src/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { publishAndVerify } from "../support/domains.ts";
import {
  arfReport,
  dsnReport,
  headersOf,
  type SmtpAnswer,
  sendWithNodemailer,
  sendWithPython,
} from "../support/reports.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack, TEST_KEK } from "../support/stack.ts";
import { until } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const MX_HOST = "mx.mailroom.test";
const MAX_BYTES = 64 * 1024;
const verpKey = deriveVerpKey(TEST_KEK);

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let hooks: WebhookReceiver;
let api: ApiStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let inbound: InboundReceiver;
const keys: Record<string, string> = {};

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  hooks = await startWebhookReceiver();
  const env = {
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_ALLOW_UNVERIFIED_FROM: "false",
    MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
    MAILROOM_INBOUND_MX_HOST: MX_HOST,
  };
  api = await startApiStack(db, { env });
  worker = await startWorkerStack(db, sink.url, env);
  inbound = await startInboundReceiver(
    { pool: db.pool, logger: createLogger({ level: "silent", name: "test" }) },
    { host: "127.0.0.1", port: 0, hostname: MX_HOST, maxBytes: MAX_BYTES },
  );
  for (const [account, domain] of [
    ["shop", "shop.test"],
    ["rival", "rival.test"],
  ] as const) {
    keys[account] = (
      await createKey(db.pool, { account, scopes: ["send", "domains", "webhooks"], expires: "never" })
    ).fullKey;
    await publishAndVerify(api, dns, keys[account], domain);
  }
  const endpoint = await api.request("POST", "/v1/webhooks", {
    key: keys.shop,
    body: { url: `${hooks.origin}/hooks`, events: ["email.bounced", "email.complained"] },
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  hooks.setSecrets(String(endpoint.json.secret));
}, 60_000);
afterAll(async () => {
  await inbound?.close();
  await worker?.stop();
  await api?.close();
  await hooks?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

/** Adds the domain, publishes what the API says (TXT and the bounce domain's MX), verifies it. */

/** Sends one email and waits until the next hop accepted it; answers its id and what the hop received. */
async function sendDelivered(account: "shop" | "rival", to: string) {
  const domain = account === "shop" ? "shop.test" : "rival.test";
  const sent = await api.request("POST", "/v1/send", {
    key: keys[account],
    body: { from: `Orders <orders@${domain}>`, to, subject: `Order for ${to}`, text: "Thanks." },
  });
  expect(sent.status, sent.text).toBe(200);
  const id = String(sent.json.messageId);
  await until(
    () => email(account, id),
    (e) => e.status === "delivered",
    20_000,
  );
  const message = sink.messages.find((m) => m.envelope.to.includes(to));
  if (!message) throw new Error(`the next hop received nothing for ${to}`);
  return { id, verp: message.envelope.from, headers: headersOf(message.raw) };
}

async function email(account: string, id: string) {
  const res = await api.request("GET", `/v1/emails/${id}`, { key: keys[account] });
  return res.json as { status: string; events: { type: string; detail: Record<string, unknown> }[] };
}

async function processed(answer: SmtpAnswer) {
  expect(answer.code, answer.response).toBe(250);
  if (!answer.reportId) throw new Error(`no report id in ${answer.response}`);
  const id = answer.reportId;
  const outcome = await until(
    () => getReportOutcome(db.pool, id),
    (o) => o !== undefined && o.status !== "received",
    20_000,
  );
  if (!outcome || outcome.status === "received") throw new Error(`report ${id} was not processed`);
  return outcome;
}

describe("bounces after delivery", () => {
  it("a hard bounce over SMTP (Python smtplib) marks the recipient bounced, suppresses it, signs email.bounced", async () => {
    const sent = await sendDelivered("shop", "gone@customer.test");
    expect(readVerpAddress(verpKey, sent.verp, ["gone@customer.test"])).toEqual({
      emailId: sent.id,
      recipient: "gone@customer.test",
    });
    const report = dsnReport({
      to: sent.verp,
      recipient: "gone@customer.test",
      action: "failed",
      status: "5.1.1",
      diagnostic: "550 5.1.1 <gone@customer.test>: Recipient address rejected: User unknown",
      originalHeaders: sent.headers,
    });
    const outcome = await processed(await sendWithPython(inbound.port, sent.verp, report));
    expect(outcome).toMatchObject({ status: "processed", outcome: { kind: "bounce", via: "verp" } });

    const after = await email("shop", sent.id);
    expect(after.status).toBe("bounced");
    expect(after.events.at(-1)).toMatchObject({
      type: "bounced",
      detail: { recipient: "gone@customer.test", status: "5.1.1", later: true },
    });
    expect(String(after.events.at(-1)?.detail.response)).toContain("User unknown");
    const suppression = await api.request("GET", "/v1/suppressions/gone%40customer.test", { key: keys.shop });
    expect(suppression.json).toMatchObject({ reason: "hard_bounce", sourceEmailId: sent.id });

    const [hook] = await hooks.waitFor(1, 20_000);
    expect(hook?.verifiedWith.length).toBe(1);
    expect(hook?.payload).toMatchObject({
      type: "email.bounced",
      data: { emailId: sent.id, recipient: "gone@customer.test", status: "5.1.1" },
    });

    // The same report again changes nothing.
    const again = await processed(await sendWithNodemailer(inbound.port, sent.verp, report));
    expect(again.status).toBe("ignored");
    expect((await email("shop", sent.id)).events.filter((e) => e.type === "bounced")).toHaveLength(1);
  });

  it("a soft bounce (delayed, 4.x.x) is a timeline event only", async () => {
    const sent = await sendDelivered("shop", "slow@customer.test");
    const report = dsnReport({
      to: sent.verp,
      recipient: "slow@customer.test",
      action: "delayed",
      status: "4.2.2",
      diagnostic: "452 4.2.2 Mailbox full, try later",
      originalHeaders: sent.headers,
    });
    expect((await processed(await sendWithNodemailer(inbound.port, sent.verp, report))).status).toBe(
      "processed",
    );
    const after = await email("shop", sent.id);
    expect(after.status).toBe("delivered");
    expect(after.events.at(-1)).toMatchObject({ type: "delayed", detail: { status: "4.2.2" } });
    const suppression = await api.request("GET", "/v1/suppressions/slow%40customer.test", { key: keys.shop });
    expect(suppression.status).toBe(404);
  });

  it("a complaint (ARF) suppresses the address, records complained and signs email.complained", async () => {
    const sent = await sendDelivered("shop", "angry@customer.test");
    const before = hooks.received.length;
    const report = arfReport({
      to: sent.verp,
      recipient: "angry@customer.test",
      originalHeaders: sent.headers,
    });
    const outcome = await processed(await sendWithNodemailer(inbound.port, sent.verp, report));
    expect(outcome).toMatchObject({ status: "processed", outcome: { kind: "complaint" } });
    const after = await email("shop", sent.id);
    expect(after.events.at(-1)).toMatchObject({
      type: "complained",
      detail: { recipient: "angry@customer.test", feedbackType: "abuse" },
    });
    const suppression = await api.request("GET", "/v1/suppressions/angry%40customer.test", {
      key: keys.shop,
    });
    expect(suppression.json).toMatchObject({ reason: "complaint", sourceEmailId: sent.id });
    const received = await hooks.waitFor(before + 1, 20_000);
    expect(received.at(-1)?.verifiedWith.length).toBe(1);
    expect(received.at(-1)?.payload).toMatchObject({
      type: "email.complained",
      data: { emailId: sent.id, recipient: "angry@customer.test", feedbackType: "abuse" },
    });
  });
});

describe("reports that must change nothing", () => {
  it("refuses recipients outside the verified bounce domains at RCPT, with 550", async () => {
    const raw = Buffer.from("Subject: x\r\n\r\nx\r\n");
    for (const to of ["bounce+x@bounces.unknown.test", "someone@shop.test", "a@bounces.pending.test"]) {
      const answer = await sendWithNodemailer(inbound.port, to, raw);
      expect(answer.code, to).toBe(550);
    }
  });

  it("a forged VERP token cannot reach another account's email", async () => {
    const victim = await sendDelivered("rival", "victim@customer.test");
    const mine = await sendDelivered("shop", "mine@customer.test");
    const tag = mine.verp.split("@")[0]?.split("-").at(-1);
    const compact = victim.id.replaceAll("-", "");
    // The victim's id with my tag, and a made-up tag: neither verifies.
    for (const forged of [
      `bounce+${compact}-${tag}@bounces.shop.test`,
      `bounce+${compact}-${"0".repeat(20)}@bounces.rival.test`,
    ]) {
      const report = dsnReport({
        to: forged,
        recipient: "victim@customer.test",
        action: "failed",
        status: "5.1.1",
        diagnostic: "550 5.1.1 no such user",
        originalHeaders: "Subject: no Message-ID here",
      });
      const outcome = await processed(await sendWithNodemailer(inbound.port, forged, report));
      expect(outcome).toMatchObject({ status: "ignored", outcome: { reason: "invalid_token" } });
    }
    // A genuine token signed with another key does not verify either.
    const otherKey = deriveVerpKey(Buffer.alloc(32, 9));
    expect(readVerpAddress(verpKey, verpAddress(otherKey, victim.id, "bounces.rival.test"))).toBeUndefined();
    expect((await email("rival", victim.id)).status).toBe("delivered");
  });

  it("finds an email by its Message-ID only through a bounce domain of the email's own account", async () => {
    const theirs = await sendDelivered("rival", "theirs@customer.test");
    const report = (to: string, headers: string, recipient: string) =>
      dsnReport({
        to,
        recipient,
        action: "failed",
        status: "5.1.1",
        diagnostic: "550 5.1.1 gone",
        originalHeaders: headers,
      });
    const stolen = await processed(
      await sendWithNodemailer(
        inbound.port,
        "postmaster@bounces.shop.test",
        report("postmaster@bounces.shop.test", theirs.headers, "theirs@customer.test"),
      ),
    );
    expect(stolen).toMatchObject({ status: "ignored", outcome: { reason: "message_id_of_another_account" } });
    expect((await email("rival", theirs.id)).status).toBe("delivered");

    const ours = await sendDelivered("shop", "byid@customer.test");
    const found = await processed(
      await sendWithNodemailer(
        inbound.port,
        "postmaster@bounces.shop.test",
        report("postmaster@bounces.shop.test", ours.headers, "byid@customer.test"),
      ),
    );
    expect(found).toMatchObject({ status: "processed", outcome: { via: "message_id", emailId: ours.id } });
  });

  it("stores malformed reports and ignores them; refuses huge ones with 552 before storing anything", async () => {
    const to = "bounce+garbage@bounces.shop.test";
    const garbage = await processed(
      await sendWithNodemailer(inbound.port, to, Buffer.from("\u0000\u0001 not a message at all\r\n--\r\n")),
    );
    expect(garbage).toMatchObject({ status: "ignored", outcome: { kind: "unrecognised" } });

    const count = async () =>
      Number((await db.pool.query("select count(*) from inbound_reports")).rows[0]?.count);
    const stored = await count();
    const huge = Buffer.from(`Subject: huge\r\n\r\n${"x".repeat(76)}\r\n`.repeat(2000));
    const answer = await sendWithNodemailer(inbound.port, to, huge);
    expect(answer.code).toBe(552);
    expect(await count()).toBe(stored);
  });
});

describe("co-recipients cannot report each other (issue 26)", () => {
  const [TO, CC, BCC] = ["to@mates.test", "cc@mates.test", "bcc@mates.test"];

  async function untouched(id: string, address: string) {
    const suppression = await api.request("GET", `/v1/suppressions/${encodeURIComponent(address)}`, {
      key: keys.shop,
    });
    expect(suppression.status, address).toBe(404);
    const after = await email("shop", id);
    expect(
      after.events.filter(
        (e) => ["bounced", "complained"].includes(e.type) && e.detail.recipient === address,
      ),
      address,
    ).toEqual([]);
  }

  it("each recipient gets its own VERP Return-Path; forged DSNs and ARFs about the others change nothing", async () => {
    const sent = await api.request("POST", "/v1/send", {
      key: keys.shop,
      body: {
        from: "Orders <orders@shop.test>",
        to: TO,
        cc: CC,
        bcc: BCC,
        subject: "For three",
        text: "Hi.",
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const id = String(sent.json.messageId);
    await until(
      () => email("shop", id),
      (e) => e.status === "delivered",
      20_000,
    );
    // One transaction per recipient, each with a Return-Path naming that recipient alone.
    const copies = Object.fromEntries(
      [TO, CC, BCC].map((r) => [r, sink.messages.filter((m) => m.envelope.to.includes(r))]),
    );
    for (const r of [TO, CC, BCC]) {
      expect(
        copies[r]?.map((m) => m.envelope.to),
        r,
      ).toEqual([[r]]);
      expect(readVerpAddress(verpKey, copies[r]?.[0]?.envelope.from ?? "", [TO, CC, BCC]), r).toEqual({
        emailId: id,
        recipient: r,
      });
    }
    const mine = copies[TO]?.[0];
    if (!mine) throw new Error("no copy for the To recipient");
    const headers = headersOf(mine.raw);
    const forgeries: [string, Buffer][] = [];
    for (const victim of [CC, BCC]) {
      const dsn = (to: string) =>
        dsnReport({
          to,
          recipient: victim,
          action: "failed",
          status: "5.1.1",
          diagnostic: "550 5.1.1 forged",
          originalHeaders: headers,
        });
      // Through my own signed Return-Path, and through the Message-ID alone (the bounce domain's postmaster).
      forgeries.push([mine.envelope.from, dsn(mine.envelope.from)]);
      forgeries.push(["postmaster@bounces.shop.test", dsn("postmaster@bounces.shop.test")]);
      forgeries.push([
        mine.envelope.from,
        arfReport({ to: mine.envelope.from, recipient: victim, originalHeaders: headers }),
      ]);
      forgeries.push([
        "postmaster@bounces.shop.test",
        arfReport({ to: "postmaster@bounces.shop.test", recipient: victim, originalHeaders: headers }),
      ]);
    }
    // An ARF naming nobody through the Message-ID alone: with three recipients, it cannot say whose copy it was.
    forgeries.push([
      "postmaster@bounces.shop.test",
      arfReport({ to: "postmaster@bounces.shop.test", recipient: undefined, originalHeaders: headers }),
    ]);
    for (const [to, report] of forgeries) {
      const outcome = await processed(await sendWithNodemailer(inbound.port, to, report));
      expect(outcome.status, JSON.stringify(outcome)).toBe("ignored");
    }
    for (const r of [TO, CC, BCC]) await untouched(id, r);
    expect((await email("shop", id)).status).toBe("delivered");

    // My own address, through my own Return-Path: that report counts, for me alone.
    const own = await processed(
      await sendWithNodemailer(
        inbound.port,
        mine.envelope.from,
        arfReport({ to: mine.envelope.from, recipient: undefined, originalHeaders: headers }),
      ),
    );
    expect(own).toMatchObject({ status: "processed", outcome: { via: "verp", reporter: TO } });
    const suppression = await api.request("GET", `/v1/suppressions/${encodeURIComponent(TO)}`, {
      key: keys.shop,
    });
    expect(suppression.json).toMatchObject({ reason: "complaint", sourceEmailId: id });
    for (const r of [CC, BCC]) await untouched(id, r);
  });
});
