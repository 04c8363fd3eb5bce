import { createKey } from "@mailroom/core/keys";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { createMailJudge, receivedFor } from "../support/mail-checks.ts";
import { RawSmtpClient } from "../support/smtp-client.ts";
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { type SubmissionStack, startSubmissionStack } from "../support/submission.ts";

// What the API and the SMTP door accept leaves as valid mail that an independent verifier (mailauth) passes
// after a real SMTP hop: 8-bit mail as BODY=8BITMIME or converted to 7 bits before signing, per next hop
// (issue 25 items 1 and 4).
const DOMAIN = "mime.test";

let db: TestDatabase;
let dns: TestDnsServer;
let full: SmtpSink;
let old: SmtpSink;
let api: ApiStack;
let smtp: SubmissionStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>> | undefined;
let judge: ReturnType<typeof createMailJudge>;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  full = await startSmtpSink();
  // A next hop of another age: no 8BITMIME, no SMTPUTF8.
  old = await startSmtpSink({ hide8BITMIME: true, hideSMTPUTF8: true });
  const env = { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_ALLOW_UNVERIFIED_FROM: "false" };
  api = await startApiStack(db, { env });
  smtp = await startSubmissionStack(db, { env });
  judge = createMailJudge(dns.address);
  const domainsKey = (await createKey(db.pool, { account: "mime", scopes: ["domains"], expires: "never" }))
    .fullKey;
  key = (await createKey(db.pool, { account: "mime", scopes: ["send"], expires: "never" })).fullKey;
  const created = await api.request("POST", "/v1/domains", { key: domainsKey, body: { name: DOMAIN } });
  for (const record of created.json.records as Array<{ name: string; strings: string[] }>) {
    dns.setTxt(record.name, record.strings);
  }
  expect((await api.request("POST", `/v1/domains/${DOMAIN}/verify`, { key: domainsKey })).json.status).toBe(
    "verified",
  );
});
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await api?.close();
  await full?.close();
  await old?.close();
  await dns?.close();
  await db?.drop();
});

/** The worker delivers to this sink from now on. */
async function deliverTo(sink: SmtpSink) {
  await worker?.stop();
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "4" });
}

async function dkim(message: ReceivedMessage) {
  const verdict = await judge(message);
  return verdict.dkim.results.map((r) => r.status.result);
}

/** The `h=` tag of the message's first DKIM signature, as a list of field names. */
const signedFields = (message: ReceivedMessage) =>
  (/\bh=([^;]+);/.exec(message.raw.toString("latin1"))?.[1] ?? "").replace(/\s+/g, "").split(":");

/** A message as an app that writes its own bytes sends it: raw UTF-8 headers, an 8-bit body, bare LFs. */
async function submitRaw(to: string[], subject: string, options: { smtpUtf8?: boolean } = {}) {
  const client = await RawSmtpClient.open(smtp.tlsPort, { tls: true, ca: smtp.ca });
  await client.command("EHLO app.test");
  expect((await client.auth(key)).code).toBe(235);
  expect((await client.command(`MAIL FROM:<app@${DOMAIN}>${options.smtpUtf8 ? " SMTPUTF8" : ""}`)).code).toBe(
    250,
  );
  for (const r of to) expect((await client.command(`RCPT TO:<${r}>`)).code).toBe(250);
  expect((await client.command("DATA")).code).toBe(354);
  const headers = [`From: Jörg Müller <app@${DOMAIN}>`, `To: ${to.join(", ")}`, `Subject: ${subject}`];
  const mime = [
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 8bit",
  ];
  client.write(
    Buffer.from(`${[...headers, ...mime].join("\n")}\n\nUne journée prête.\nÀ bientôt ✓\r\n.\r\n`),
  );
  const reply = await client.read();
  client.close();
  expect(reply.code, reply.text).toBe(250);
  return reply.text.split(" ").at(-1) as string;
}

async function finalLog(id: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const logged = await api.request("GET", `/v1/emails/${id}`, { key });
    if (!["queued", "sending", "deferred"].includes(logged.json.status as string)) return logged.json;
    if (Date.now() > deadline) throw new Error(`email ${id} still ${logged.json.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("to a next hop with 8BITMIME and SMTPUTF8", () => {
  beforeAll(() => deliverTo(full));

  it("delivers undeclared 8-bit mail from an SMTP client as BODY=8BITMIME, intact and signed", async () => {
    await submitRaw(["eight@example.net"], "Prête ✓");
    const message = await receivedFor(full, "eight@example.net");
    expect(message.envelope.bodyType).toBe("8bitmime");
    expect(message.parsed.subject).toBe("Prête ✓");
    expect(message.parsed.from).toMatchObject({ name: "Jörg Müller", address: `app@${DOMAIN}` });
    expect(message.parsed.text).toBe("Une journée prête.\nÀ bientôt ✓\n");
    expect(await dkim(message)).toEqual(["pass"]);
    // From over-signed; the MIME fields of SMTP-submitted mail signed (and over-signed).
    const fields = signedFields(message);
    expect(fields.filter((f) => f === "from")).toHaveLength(2);
    expect(fields).toEqual(
      expect.arrayContaining(["mime-version", "content-type", "content-transfer-encoding"]),
    );
  });

  it("delivers to a non-ASCII address with SMTPUTF8", async () => {
    await submitRaw(["josé@example.net"], "Olá", { smtpUtf8: true });
    const message = await receivedFor(full, "josé@example.net");
    expect(message.envelope.smtpUtf8).toBe(true);
    expect(await dkim(message)).toEqual(["pass"]);
  });

  it("signs an API text and html with bare CRs so that the signature survives the hop", async () => {
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: `app@${DOMAIN}`,
        to: "cr@example.net",
        subject: "CR",
        text: "one\rtwo\nthree\r\n",
        html: "<p>a\rb</p>\r<p>c</p>",
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const message = await receivedFor(full, "cr@example.net");
    expect(await dkim(message)).toEqual(["pass"]);
    expect(message.parsed.text?.trimEnd()).toBe("one\ntwo\nthree");
  });

  it("sends a message/rfc822 attachment unencoded and valid; refuses multipart/* and Resent-Bcc", async () => {
    const eml = `From: Zoë <z@example.org>\r\nSubject: Forwarded\r\n\r\nThe original ✓\r\n`;
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: `app@${DOMAIN}`,
        to: "fwd@example.net",
        subject: "Fwd",
        text: "See attached.",
        attachments: [
          {
            filename: "original.eml",
            contentType: "message/rfc822",
            content: Buffer.from(eml).toString("base64"),
          },
        ],
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const message = await receivedFor(full, "fwd@example.net");
    expect(await dkim(message)).toEqual(["pass"]);
    expect(message.raw.toString("latin1")).toMatch(
      /Content-Type: message\/rfc822[\s\S]*?Content-Transfer-Encoding: 8bit/,
    );
    const [attached] = message.parsed.attachments;
    expect(attached?.mimeType).toBe("message/rfc822");
    expect(
      Buffer.from(attached?.content as ArrayBuffer)
        .toString()
        .trimEnd(),
    ).toBe(eml.replace(/\r\n/g, "\n").trimEnd());

    const multipart = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: `app@${DOMAIN}`,
        to: "x@example.net",
        subject: "x",
        text: "x",
        attachments: [
          { filename: "p", contentType: "multipart/mixed", content: Buffer.from("--b--").toString("base64") },
        ],
      },
    });
    expect([multipart.status, multipart.json.error]).toEqual([400, "validation_error"]);
    const resent = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: `app@${DOMAIN}`,
        to: "x@example.net",
        subject: "x",
        text: "x",
        headers: { "Resent-Bcc": "spy@example.net" },
      },
    });
    expect([resent.status, resent.json.error]).toEqual([400, "validation_error"]);
  });

  it("drops a Resent-Bcc header submitted over SMTP: the hidden recipient gets the mail, nobody sees it", async () => {
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtp.tlsPort,
      secure: true,
      tls: { ca: smtp.ca, servername: "localhost" },
      auth: { user: "app", pass: key },
    });
    await transport.sendMail({
      envelope: { from: `app@${DOMAIN}`, to: ["seen@example.net", "hidden@example.net"] },
      raw: `From: app@${DOMAIN}\r\nTo: seen@example.net\r\nResent-From: app@${DOMAIN}\r\nResent-Bcc: hidden@example.net\r\nSubject: Resent\r\n\r\nAgain.\r\n`,
    });
    transport.close();
    // Each recipient has its own envelope (its own VERP Return-Path, issue 26), so two transactions.
    for (const recipient of ["seen@example.net", "hidden@example.net"]) {
      const message = await receivedFor(full, recipient);
      expect(message.envelope.to).toEqual([recipient]);
      expect(message.raw.toString("latin1")).not.toContain("hidden@example.net");
      expect(await dkim(message)).toEqual(["pass"]);
    }
  });
});

describe("to a next hop without 8BITMIME or SMTPUTF8", () => {
  beforeAll(() => deliverTo(old));

  it("converts 8-bit mail to 7 bits before signing: all ASCII on the wire, the same content, DKIM passes", async () => {
    await submitRaw(["seven@example.net"], "Prête ✓");
    const message = await receivedFor(old, "seven@example.net");
    expect(message.envelope.bodyType).toBe("7bit");
    expect(message.raw.toString("latin1")).not.toMatch(/[\u0080-\u00ff]/);
    expect(message.parsed.subject).toBe("Prête ✓");
    expect(message.parsed.from).toMatchObject({ name: "Jörg Müller", address: `app@${DOMAIN}` });
    expect(message.parsed.text).toBe("Une journée prête.\nÀ bientôt ✓\n");
    expect(await dkim(message)).toEqual(["pass"]);
  });

  it("refuses a non-ASCII address with 553 5.6.7 on the email's timeline and delivers the others", async () => {
    const id = await submitRaw(["josé@example.net", "ann@example.net"], "Olá", { smtpUtf8: true });
    const message = await receivedFor(old, "ann@example.net");
    expect(message.envelope.to).toEqual(["ann@example.net"]);
    expect(await dkim(message)).toEqual(["pass"]);
    const logged = await finalLog(id);
    expect(JSON.stringify(logged)).toMatch(/553 5\.6\.7 The next hop does not offer SMTPUTF8/);
    expect(old.messages.some((m) => m.envelope.to.includes("josé@example.net"))).toBe(false);
  });
});
