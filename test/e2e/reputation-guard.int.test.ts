import { applyAccountPolicy } from "@mailroom/core/accounts";
import { getReportOutcome } from "@mailroom/core/bounces";
import { createKey } from "@mailroom/core/keys";
import { createLogger } from "@mailroom/core/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InboundReceiver, startInboundReceiver } from "../../smtp/src/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { publishAndVerify } from "../support/domains.ts";
import { arfReport, headersOf, sendWithNodemailer } from "../support/reports.ts";
import { runGuardThroughNow } from "../support/reputation.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

// Issue 31 item 2's "done when": a complaint storm, as real ARF reports through the bounce receiver, pauses
// one account while another keeps sending; its accepted mail is held, and leaves after resume, none lost.
const MX_HOST = "mx.mailroom.test";
const ACCOUNTS = { shop: "shop.test", rival: "rival.test" } as const;
type Account = keyof typeof ACCOUNTS;

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let hooks: WebhookReceiver;
let api: ApiStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>> | undefined;
let inbound: InboundReceiver;
const keys = {} as Record<Account, string>;
const env = {
  MAILROOM_ALLOW_UNVERIFIED_FROM: "false",
  MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
  MAILROOM_INBOUND_MX_HOST: MX_HOST,
};

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  hooks = await startWebhookReceiver();
  Object.assign(env, { MAILROOM_DNS_SERVERS: dns.address });
  api = await startApiStack(db, { env });
  worker = await startWorkerStack(db, sink.url, env);
  inbound = await startInboundReceiver(
    { pool: db.pool, logger: createLogger({ level: "silent", name: "test" }) },
    { host: "127.0.0.1", port: 0, hostname: MX_HOST, maxBytes: 64 * 1024 },
  );
  for (const [account, domain] of Object.entries(ACCOUNTS) as [Account, string][]) {
    keys[account] = (
      await createKey(db.pool, { account, scopes: ["send", "domains", "webhooks"], expires: "never" })
    ).fullKey;
    await publishAndVerify(api, dns, keys[account], domain);
    // A small minimum volume, so that a storm of a few reports is judged; the lines are the defaults.
    await applyAccountPolicy(db.pool, account, `${account}/policy`, { reputation: { minimumVolume: 10 } });
  }
  const endpoint = await api.request("POST", "/v1/webhooks", {
    key: keys.shop,
    body: { url: `${hooks.origin}/hooks`, events: ["account.paused", "account.resumed"] },
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

/** Adds the domain, publishes what the API says (TXT, and the bounce domain's MX with SPF), verifies it. */

const send = (account: Account, to: string) =>
  api.request("POST", "/v1/send", {
    key: keys[account],
    body: { from: `Orders <orders@${ACCOUNTS[account]}>`, to, subject: `For ${to}`, text: "Thanks." },
  });

const statusOf = async (account: Account, id: string) =>
  (await api.request("GET", `/v1/emails/${id}`, { key: keys[account] })).json.status as string;

/** Sends to each address and waits until every email is delivered; returns what the next hop received. */
async function sendDelivered(account: Account, recipients: string[]) {
  const ids = [];
  for (const to of recipients) {
    const sent = await send(account, to);
    expect(sent.status, sent.text).toBe(200);
    ids.push(String(sent.json.messageId));
  }
  for (const id of ids) {
    expect(
      await until(
        () => statusOf(account, id),
        (s) => s === "delivered",
        20_000,
      ),
    ).toBe("delivered");
  }
  return recipients.map((to) => {
    const message = sink.messages.find((m) => m.envelope.to.includes(to));
    if (!message) throw new Error(`the next hop received nothing for ${to}`);
    return { to, verp: message.envelope.from, headers: headersOf(message.raw) };
  });
}

const heldOf = async (account: string) =>
  Number(
    (await db.pool.query("select count(*) from emails where account = $1 and held_at is not null", [account]))
      .rows[0].count,
  );

describe("the reputation guard (issue 31 item 2, issue 29 item 4)", () => {
  it("a complaint storm pauses one account, holds its mail, lets another send, and resume releases it all", async () => {
    const addresses = (account: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${account}${i}@customer.test`);
    const shopSent = await sendDelivered("shop", addresses("shop", 12));
    await sendDelivered("rival", addresses("rival", 12));

    // The storm: 3 of the shop's 12 recipients complain, through the bounce receiver (real SMTP, real ARF).
    for (const sent of shopSent.slice(0, 3)) {
      const answer = await sendWithNodemailer(
        inbound.port,
        sent.verp,
        arfReport({ to: sent.verp, recipient: sent.to, originalHeaders: sent.headers }),
      );
      expect(answer.code, answer.response).toBe(250);
      const id = answer.reportId ?? "";
      const outcome = await until(
        () => getReportOutcome(db.pool, id),
        (o) => o?.status === "processed",
        20_000,
      );
      expect(outcome).toMatchObject({ status: "processed", outcome: { kind: "complaint" } });
    }

    // Mail the shop has accepted but not yet sent when the guard runs: the worker is stopped meanwhile.
    await worker?.stop();
    worker = undefined;
    const waiting = addresses("waiting", 4);
    const waitingIds = [];
    for (const to of waiting) waitingIds.push(String((await send("shop", to)).json.messageId));

    // The guard, as its every-minute job runs it, until it has counted every event so far (no settle time).
    const run = await runGuardThroughNow(db.pool);
    const shop24h = run.rates.find(
      (r) => r.account === "shop" && r.domain === "shop.test" && r.windowHours === 24,
    );
    expect(shop24h).toMatchObject({ sent: 12, complained: 3, bounced: 0, level: "pause" });
    expect(run.rates.find((r) => r.account === "rival" && r.domain === "")).toMatchObject({
      sent: 12,
      complained: 0,
      level: "ok",
    });
    // This run or the worker's own minute job paused it, never the other account.
    expect(run.paused.map((p) => p.account)).not.toContain("rival");

    // Issue 29 item 4: the domain resource shows its own rates (the 0.1 % / 0.3 % complaint lines).
    const domain = (await api.request("GET", "/v1/domains/shop.test", { key: keys.shop })).json;
    expect(domain.reputation).toEqual([
      {
        windowHours: 24,
        sent: 12,
        bounced: 0,
        complained: 3,
        bounceRate: 0,
        complaintRate: 0.25,
        level: "pause",
      },
      {
        windowHours: 168,
        sent: 12,
        bounced: 0,
        complained: 3,
        bounceRate: 0,
        complaintRate: 0.25,
        level: "pause",
      },
    ]);
    const shopView = (await api.request("GET", "/v1/account", { key: keys.shop })).json;
    expect(shopView).toMatchObject({ sendingStatus: "paused", paused: { by: "reputation-guard" } });
    // The reason is the rate when it paused: the worker's minute job may have run after the first or second
    // report (1 or 2 of 12), before this run counted all three.
    expect((shopView.paused as { reason: string }).reason).toMatch(
      /complaint rate (8\.33|16\.67|25\.00) % over 24 h for the account \(12 sent\) reached the pause line of 0\.30 %/,
    );
    expect((await api.request("GET", "/v1/account", { key: keys.rival })).json.sendingStatus).toBe("active");
    worker = await startWorkerStack(db, sink.url, env);
    const paused = await hooks.waitFor(1, 20_000);
    expect(paused.at(0)?.payload).toMatchObject({ type: "account.paused", data: { account: "shop" } });

    // New sends are refused; the accepted ones are held by the restarted worker, not sent, not lost.
    const refused = await send("shop", "late@customer.test");
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe("sending_paused");
    expect(
      await until(
        () => heldOf("shop"),
        (n) => n === waiting.length,
        20_000,
      ),
    ).toBe(waiting.length);
    // The other account keeps sending meanwhile.
    await sendDelivered("rival", ["rival-during@customer.test"]);
    for (const to of waiting) expect(sink.messages.some((m) => m.envelope.to.includes(to))).toBe(false);

    const resumed = await api.request("POST", "/v1/account/resume", { key: keys.shop });
    expect(resumed.json).toEqual({ account: "shop", sendingStatus: "active", released: waiting.length });
    for (const id of waitingIds) {
      expect(
        await until(
          () => statusOf("shop", id),
          (s) => s === "delivered",
          20_000,
        ),
      ).toBe("delivered");
    }
    for (const to of waiting) {
      expect(
        sink.messages.filter((m) => m.envelope.to.includes(to)),
        to,
      ).toHaveLength(1);
    }
    expect(await heldOf("shop")).toBe(0);
    const events = await hooks.waitFor(2, 20_000);
    expect(events.at(1)?.payload).toMatchObject({
      type: "account.resumed",
      data: { account: "shop", released: waiting.length },
    });

    // Mail from before the resume cannot pause it again: the guard counts the hours after it.
    const again = await runGuardThroughNow(db.pool);
    expect(again.paused).toEqual([]);
  }, 120_000);
});
