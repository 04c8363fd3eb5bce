import { createKey } from "@mailroom/core/keys";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { publishAndVerify } from "../support/domains.ts";
import { createMailJudge, receivedFor } from "../support/mail-checks.ts";
import { RawSmtpClient } from "../support/smtp-client.ts";
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { type SubmissionStack, startSubmissionStack } from "../support/submission.ts";

// Issue 33 item 5, ADR 0071: `GET /v1/emails/{id}/raw` answers the message the worker builds for delivery,
// from the same composer. Proven against what a real SMTP sink received from the real worker for the same
// email: the same bytes once the DKIM-Signature fields the worker adds at handover are taken off (the sink
// adds no Received field), and the delivered copy's signature passes an independent verifier.
const DOMAIN = "raw.test";

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let api: ApiStack;
let smtp: SubmissionStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let judge: ReturnType<typeof createMailJudge>;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  const env = { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_ALLOW_UNVERIFIED_FROM: "false" };
  api = await startApiStack(db, { env });
  smtp = await startSubmissionStack(db, { env });
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "2" });
  judge = createMailJudge(dns.address);
  const domainsKey = (await createKey(db.pool, { account: "raw", scopes: ["domains"], expires: "never" }))
    .fullKey;
  key = (await createKey(db.pool, { account: "raw", scopes: ["send"], expires: "never" })).fullKey;
  await publishAndVerify(api, dns, domainsKey, DOMAIN);
});
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await api?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

/** The message without its DKIM-Signature fields (each with its folded lines), the rest byte for byte. */
function withoutDkimSignatures(raw: Buffer): Buffer {
  const text = raw.toString("latin1");
  const end = text.indexOf("\r\n\r\n") + 2;
  const fields = text.slice(0, end).split(/\r\n(?![ \t])/);
  const kept = fields.filter((f) => f !== "" && !/^dkim-signature[ \t]*:/i.test(f));
  return Buffer.concat([Buffer.from(`${kept.join("\r\n")}\r\n`, "latin1"), raw.subarray(end)]);
}

const rawOf = async (id: string) => {
  const res = await api.request("GET", `/v1/emails/${id}/raw`, { key });
  expect(res.status, res.text).toBe(200);
  expect(res.headers["content-type"]).toBe("message/rfc822");
  expect(res.headers["x-mailroom-dkim"]).toBe("omitted");
  return res.bytes;
};

async function expectDeliveredAsServed(delivered: ReceivedMessage, served: Buffer) {
  expect(served.includes("DKIM-Signature")).toBe(false);
  expect(delivered.raw.toString("latin1")).toMatch(/^DKIM-Signature: /);
  expect((await judge(delivered)).dkim.results.map((r) => r.status.result)).toEqual(["pass"]);
  // Compared as text first for a readable diff, then as bytes.
  expect(withoutDkimSignatures(delivered.raw).toString("latin1")).toBe(served.toString("latin1"));
  expect(withoutDkimSignatures(delivered.raw).equals(served)).toBe(true);
}

async function waitForStatus(id: string, status: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await db.pool.query("select status from emails where id = $1", [id]);
    if (rows[0]?.status === status) return;
    if (Date.now() > deadline) throw new Error(`email ${id} is ${rows[0]?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("GET /v1/emails/{id}/raw of an API send", () => {
  it("is the delivered message but for its DKIM signature, with attachments and inline images", async () => {
    const pdf = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256));
    const png = Buffer.from(
      "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
        "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a1d5a07b0000000049454e44ae426082",
      "hex",
    );
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: `Jörg Müller <billing@${DOMAIN}>`,
        to: "Ann <ann@example.test>",
        cc: "carol@example.test",
        bcc: "hidden@example.test",
        replyTo: `support@${DOMAIN}`,
        subject: "Rechnung für März ✓",
        html: '<p>Grüße</p><img src="cid:logo@raw.test">',
        text: "Grüße\naus Köln",
        category: "billing",
        headers: { "List-Unsubscribe": `<mailto:unsub@${DOMAIN}>`, "X-Invoice-Id": "INV-42" },
        attachments: [
          { filename: "März 42.pdf", content: pdf.toString("base64"), contentType: "application/pdf" },
          {
            filename: "logo.png",
            content: png.toString("base64"),
            contentType: "image/png",
            contentId: "logo@raw.test",
          },
        ],
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const id = String(sent.json.messageId);
    await waitForStatus(id, "delivered");
    const served = await rawOf(id);
    // Each recipient's copy (one SMTP transaction per VERP envelope) carries the same message.
    for (const recipient of ["ann@example.test", "carol@example.test", "hidden@example.test"]) {
      await expectDeliveredAsServed(await receivedFor(sink, recipient), served);
    }

    // An independent parser reads the download as the email that was sent.
    const parsed = await simpleParser(served, { skipImageLinks: true });
    expect(parsed.subject).toBe("Rechnung für März ✓");
    expect(parsed.from?.value).toEqual([{ name: "Jörg Müller", address: `billing@${DOMAIN}` }]);
    expect(parsed.text).toBe("Grüße\naus Köln");
    expect(parsed.html).toBe('<p>Grüße</p><img src="cid:logo@raw.test">');
    expect(parsed.headers.get("list")).toMatchObject({ unsubscribe: { mail: `unsub@${DOMAIN}` } });
    expect(parsed.headers.has("bcc")).toBe(false);
    expect(parsed.messageId).toBe(
      (await api.request("GET", `/v1/emails/${id}`, { key })).json.messageIdHeader,
    );
    // The inline image sits in the multipart/related part, ahead of the mixed part's attachment.
    const attachments = parsed.attachments.map((a) => ({
      filename: a.filename,
      type: a.contentType,
      cid: a.cid,
      content: a.content,
    }));
    expect(attachments).toEqual([
      { filename: "logo.png", type: "image/png", cid: "logo@raw.test", content: png },
      { filename: "März 42.pdf", type: "application/pdf", cid: undefined, content: pdf },
    ]);
  });

  it("builds a scheduled email as its attempt will, before it leaves", async () => {
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: `news@${DOMAIN}`,
        to: "sched@example.test",
        subject: "Later",
        text: "Soon.",
        scheduledAt: later,
      },
    });
    expect(sent.json.status, sent.text).toBe("scheduled");
    const id = String(sent.json.messageId);
    const before = await rawOf(id);
    expect((await simpleParser(before)).subject).toBe("Later");
    // Brought forward to a moment from now (a time in the past is refused, and a busy machine's answer can take
    // more than a second): the worker delivers it.
    const soon = new Date(Date.now() + 5_000).toISOString();
    const moved = await api.request("PATCH", `/v1/emails/${id}`, { key, body: { scheduledAt: soon } });
    expect(moved.status, moved.text).toBe(200);
    await expectDeliveredAsServed(await receivedFor(sink, "sched@example.test"), before);
    expect((await rawOf(id)).equals(before)).toBe(true);
  });
});

describe("GET /v1/emails/{id}/raw of an SMTP submission", () => {
  it("is the client's message with the Message-ID and Date Mailroom added, as delivered", async () => {
    const client = await RawSmtpClient.open(smtp.tlsPort, { tls: true, ca: smtp.ca });
    await client.command("EHLO app.test");
    expect((await client.auth(key)).code).toBe(235);
    expect((await client.command(`MAIL FROM:<app@${DOMAIN}>`)).code).toBe(250);
    expect((await client.command("RCPT TO:<submitted@example.test>")).code).toBe(250);
    expect((await client.command("DATA")).code).toBe(354);
    const message = [
      `From: app@${DOMAIN}`,
      "To: submitted@example.test",
      "Subject: Bare",
      "",
      "No id, no date.",
      "",
    ].join("\r\n");
    client.write(Buffer.from(`${message}.\r\n`));
    const reply = await client.read();
    client.close();
    expect(reply.code, reply.text).toBe(250);
    const id = reply.text.split(" ").at(-1) as string;
    await waitForStatus(id, "delivered");
    const served = await rawOf(id);
    expect(served.toString("latin1")).toMatch(/^Message-ID: <[^>]+>\r\nDate: [^\r]+ \+0000\r\n/);
    expect(served.toString("latin1").endsWith(message)).toBe(true);
    await expectDeliveredAsServed(await receivedFor(sink, "submitted@example.test"), served);
  });
});
