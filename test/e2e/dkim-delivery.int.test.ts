import { deriveVerpKey, readVerpAddress } from "@mailroom/core/bounces";
import { listEvents } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { createMailJudge } from "../support/mail-checks.ts";
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack, TEST_KEK } from "../support/stack.ts";

const DOMAIN = "billing.test";
const FROM = `Billing <billing@${DOMAIN}>`;

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let api: ApiStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let judge: ReturnType<typeof createMailJudge>;
let domainsKey: string;
let sendKey: string;
let domain: PublishedDomain;
/** Every RCPT TO the sink was asked, accepted or not: what "never reached SMTP" is judged by. */
const rcptSeen: string[] = [];
let refuse = new Set<string>();

interface PublishedDomain {
  status: string;
  records: Array<{ name: string; strings: string[] }>;
  dkimKeys: Array<{ selector: string; algorithm: string }>;
}

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  sink.answer = (recipient) => {
    rcptSeen.push(recipient);
    return refuse.has(recipient) ? { code: 550, message: "5.1.1 No such user here" } : { code: 250 };
  };
  api = await startApiStack(db, {
    env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_ALLOW_UNVERIFIED_FROM: "false" },
  });
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "4" });
  judge = createMailJudge(dns.address);
  domainsKey = (await createKey(db.pool, { account: "billing-co", scopes: ["domains"], expires: "never" }))
    .fullKey;
  sendKey = (await createKey(db.pool, { account: "billing-co", scopes: ["send"], expires: "never" })).fullKey;
  domain = await addVerifiedDomain(DOMAIN, domainsKey, ["rsa", "ed25519"]);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

/** Adds a domain through the API, publishes exactly the records it answered, and verifies it. */
async function addVerifiedDomain(name: string, key: string, algorithms = ["rsa"]): Promise<PublishedDomain> {
  const created = await api.request("POST", "/v1/domains", { key, body: { name, algorithms } });
  expect(created.status, created.text).toBe(201);
  for (const record of (created.json as unknown as PublishedDomain).records) {
    dns.setTxt(record.name, record.strings);
  }
  const verified = await api.request("POST", `/v1/domains/${name}/verify`, { key });
  expect(verified.status, verified.text).toBe(200);
  expect(verified.json.status).toBe("verified");
  return verified.json as unknown as PublishedDomain;
}

async function send(body: Record<string, unknown>) {
  return api.request("POST", "/v1/send", {
    key: sendKey,
    body: { from: FROM, subject: "Your receipt", text: "Thanks.", ...body },
  });
}

async function sendAccepted(body: Record<string, unknown>): Promise<string> {
  const res = await send(body);
  expect(res.status, res.text).toBe(200);
  return String(res.json.messageId);
}

async function waitForStatus(id: string, status: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.pool.query("select * from emails where id = $1", [id]);
    if (rows[0]?.status === status) return rows[0] as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`email ${id} is ${rows[0]?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function received(recipient: string): ReceivedMessage[] {
  return sink.messages.filter((m) => m.envelope.to.includes(recipient));
}

describe("a domain added through the API signs its mail", () => {
  it("was verified from the records the API answered", () => {
    expect(domain.status).toBe("verified");
    expect(domain.dkimKeys.map((k) => k.algorithm)).toEqual(["rsa", "ed25519"]);
  });

  it("delivers mail whose RSA and Ed25519 signatures pass mailauth, on the bounce domain", async () => {
    const selectors = Object.fromEntries(domain.dkimKeys.map((k) => [k.algorithm, k.selector]));
    const id = await sendAccepted({
      to: "Customer <customer@example.net>",
      subject: "Your receipt – №42 ✓",
      html: "<p>Total: <b>€10</b></p>",
      text: `Total: €10\n${"long line ".repeat(120)}\n`,
    });
    await waitForStatus(id, "delivered");
    const [message] = received("customer@example.net");
    if (!message) throw new Error("the sink received nothing for customer@example.net");

    expect(message.envelope.from).toMatch(new RegExp(`@bounces\\.${DOMAIN.replace(".", "\\.")}$`));
    expect(readVerpAddress(deriveVerpKey(TEST_KEK), message.envelope.from, ["customer@example.net"])).toEqual(
      {
        emailId: id,
        recipient: "customer@example.net",
      },
    );
    expect(message.parsed.messageId).toMatch(new RegExp(`^<${id}@[^>]+>$`));
    expect(message.parsed.from).toEqual({ name: "Billing", address: `billing@${DOMAIN}` });

    const verdict = await judge(message, message.envelope.from);
    expect(
      verdict.dkim.results.map((r) => ({
        result: r.status.result,
        domain: r.signingDomain,
        selector: r.selector,
        aligned: r.status.aligned,
      })),
    ).toEqual([
      { result: "pass", domain: DOMAIN, selector: selectors.rsa, aligned: DOMAIN },
      { result: "pass", domain: DOMAIN, selector: selectors.ed25519, aligned: DOMAIN },
    ]);
    expect((verdict.dkim.results[1] as unknown as { algo: string }).algo).toBe("ed25519-sha256");
    expect(verdict.dmarc).toMatchObject({ status: { result: "pass" } });

    // The same verifier must fail a message changed in transit, or the checks above would prove nothing.
    const forged = Buffer.from(
      message.raw.toString("latin1").replace(/^Subject: .*$/m, "Subject: Pay to account 666"),
      "latin1",
    );
    const forgedVerdict = await judge(forged, message.envelope.from);
    expect(forgedVerdict.dkim.results.map((r) => r.status.result)).toEqual(["fail", "fail"]);
  });

  it("refuses a From domain the account has not verified with 422, naming no other account's domain", async () => {
    const theirKey = (
      await createKey(db.pool, { account: "rival-co", scopes: ["domains"], expires: "never" })
    ).fullKey;
    await addVerifiedDomain("rival.test", theirKey);
    await addVerifiedDomain("secret-brand.test", theirKey);
    const pending = await api.request("POST", "/v1/domains", {
      key: domainsKey,
      body: { name: "pending.test" },
    });
    expect(pending.status).toBe(201);

    const refusals: Record<string, string> = {};
    for (const domain of ["rival.test", "nowhere.test", "pending.test", `mail.${DOMAIN}`]) {
      const res = await send({ from: `Someone <someone@${domain}>`, to: "x@example.net" });
      expect(res.status, `${domain}: ${res.text}`).toBe(422);
      expect(res.json.error).toBe("domain_not_verified");
      const message = String(res.json.message);
      expect(message).not.toMatch(/rival-co|secret-brand|another account/i);
      refusals[domain] = message.replaceAll(domain, "<domain>");
    }
    // Another account's verified domain is refused in the very words used for a domain nobody has.
    expect(refusals["rival.test"]).toBe(refusals["nowhere.test"]);

    const batch = await api.request("POST", "/v1/send/batch", {
      key: sendKey,
      body: [
        { from: FROM, to: "x@example.net", subject: "ok", text: "ok" },
        { from: "someone@rival.test", to: "x@example.net", subject: "no", text: "no" },
      ],
    });
    expect(batch.status, batch.text).toBe(422);
    expect(batch.json.error).toBe("domain_not_verified");
    const { rows } = await db.pool.query(
      "select 1 from emails where account = 'billing-co' and to_addresses = $1",
      [["x@example.net"]],
    );
    expect(rows).toEqual([]);
    expect(
      await sendAccepted({ from: `billing@${DOMAIN.toUpperCase()}`, to: "case@example.net" }),
    ).toBeTruthy();
  });
});

describe("hard bounces and the suppression list", () => {
  it("suppresses a hard-bounced address, fails later sends to it without SMTP, and delivers after removal", async () => {
    const gone = "gone@example.net";
    const suppressionPath = `/v1/suppressions/${encodeURIComponent(gone)}`;
    refuse = new Set([gone]);

    const bounced = await sendAccepted({ to: gone, subject: "First try" });
    const bouncedRow = await waitForStatus(bounced, "bounced");
    expect(bouncedRow.recipient_results).toEqual({
      [gone]: { status: "permanent", code: 550, response: expect.stringContaining("No such user") },
    });
    expect(rcptSeen.filter((r) => r === gone)).toHaveLength(1);

    const listed = await api.request("GET", suppressionPath, { key: sendKey });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toMatchObject({
      address: gone,
      reason: "hard_bounce",
      sourceEmailId: bounced,
      detail: expect.stringContaining("550"),
    });

    // The mailbox exists again, but the list still stops mail to it before any SMTP conversation.
    refuse = new Set();
    const stopped = await sendAccepted({ to: gone, subject: "Second try" });
    const stoppedRow = await waitForStatus(stopped, "failed");
    expect(stoppedRow.failure_reason).toBe("suppressed");
    expect((await listEvents(db.pool, stopped)).map((e) => e.type)).toEqual(["queued", "failed"]);
    expect(rcptSeen.filter((r) => r === gone)).toHaveLength(1);
    expect(received(gone)).toEqual([]);

    const removed = await api.request("DELETE", suppressionPath, { key: sendKey });
    expect(removed.status).toBe(204);
    expect((await api.request("GET", suppressionPath, { key: sendKey })).status).toBe(404);

    const delivered = await sendAccepted({ to: gone, subject: "Third try" });
    await waitForStatus(delivered, "delivered");
    const [message] = received(gone);
    expect(message?.parsed.subject).toBe("Third try");
    expect(readVerpAddress(deriveVerpKey(TEST_KEK), message?.envelope.from ?? "", [gone])?.emailId).toBe(
      delivered,
    );
  });
});
