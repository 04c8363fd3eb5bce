import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createKey } from "@mailroom/core/keys";
import { addSuppressions } from "@mailroom/core/suppressions";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { createMailJudge, receivedFor as receivedFrom } from "../support/mail-checks.ts";
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { type SubmissionStack, startSubmissionStack } from "../support/submission.ts";
import { until } from "../support/wait.ts";

const run = promisify(execFile);
const DOMAIN = "shop.test";

/** Whether a Debian package's command is here; CI installs it (scripts/install-system-packages.sh). */
async function has(command: string): Promise<boolean> {
  const found = await run("sh", ["-c", `command -v ${command}`]).then(
    () => true,
    () => false,
  );
  if (!found)
    console.warn(`${command} is not installed: its SMTP client test is skipped (make system-packages)`);
  return found;
}
const hasSwaks = await has("swaks");
const hasPython = await has("python3");

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
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "4" });
  judge = createMailJudge(dns.address);
  const domainsKey = (await createKey(db.pool, { account: "shop", scopes: ["domains"], expires: "never" }))
    .fullKey;
  key = (await createKey(db.pool, { account: "shop", scopes: ["send"], expires: "never" })).fullKey;
  const created = await api.request("POST", "/v1/domains", { key: domainsKey, body: { name: DOMAIN } });
  expect(created.status, created.text).toBe(201);
  for (const record of created.json.records as Array<{ name: string; strings: string[] }>) {
    dns.setTxt(record.name, record.strings);
  }
  const verified = await api.request("POST", `/v1/domains/${DOMAIN}/verify`, { key: domainsKey });
  expect(verified.json.status).toBe("verified");
});
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await api?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

const receivedFor = (recipient: string) => receivedFrom(sink, recipient);

/** mailauth, an independent verifier, on the DKIM signatures of a received message. */
async function dkimResults(message: ReceivedMessage) {
  const verdict = await judge(message);
  return verdict.dkim.results.map((r) => ({ result: r.status.result, domain: r.signingDomain }));
}

/**
 * The email's log entry once it reaches `status`: the next hop can hold the message a moment before the
 * worker has recorded its answer, so the log is read until it has (or 30 s pass, and the test says what it saw).
 */
const loggedOnce = (id: string | undefined, status: string) =>
  until(
    () => api.request("GET", `/v1/emails/${id}`, { key }),
    (logged) => logged.json.status === status,
    30_000,
  );

const queuedId = (response: string) => /Queued as ([0-9a-f-]{36})$/.exec(response)?.[1];

describe("SMTP submission reaches the receiver signed, like an API send", () => {
  it("nodemailer over STARTTLS: MIME kept (inline part, attachment, non-ASCII), Bcc unseen, DKIM passes", async () => {
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtp.port,
      requireTLS: true,
      tls: { ca: smtp.ca, servername: "localhost" },
      auth: { user: "grafana", pass: key },
    });
    const info = await transport.sendMail({
      from: `Shop <orders@${DOMAIN}>`,
      to: "buyer@example.net",
      bcc: "audit@example.net",
      subject: "Bestellung №7 – danke ✓",
      text: "Grüße",
      html: '<p>Grüße <img src="cid:logo"></p>',
      attachments: [
        { filename: "logo.png", content: Buffer.from("89504e47", "hex"), cid: "logo" },
        { filename: "invoice.pdf", content: Buffer.from("%PDF-1.4 fake"), contentType: "application/pdf" },
      ],
    });
    transport.close();
    const id = queuedId(info.response);
    const message = await receivedFor("buyer@example.net");
    // Each recipient in its own transaction, with its own Return-Path (ADR 0026); the Bcc is in no header.
    const audit = await receivedFor("audit@example.net");
    expect([message.envelope.to, audit.envelope.to]).toEqual([["buyer@example.net"], ["audit@example.net"]]);
    expect(message.envelope.from).not.toBe(audit.envelope.from);
    for (const copy of [message, audit])
      expect(copy.raw.toString("latin1")).not.toMatch(/audit@example\.net/);
    expect(message.parsed.subject).toBe("Bestellung №7 – danke ✓");
    expect(message.parsed.messageId).toBe(info.messageId);
    expect(message.parsed.attachments.map((a) => [a.filename, a.disposition, a.contentId ?? null])).toEqual([
      ["logo.png", "inline", "<logo>"],
      ["invoice.pdf", "attachment", null],
    ]);
    expect(await dkimResults(message)).toEqual([{ result: "pass", domain: DOMAIN }]);

    const logged = await loggedOnce(id, "delivered");
    expect(logged.json).toMatchObject({
      source: "smtp",
      status: "delivered",
      messageIdHeader: info.messageId,
    });
    expect((logged.json.events as Array<{ type: string }>).map((e) => e.type)).toEqual([
      "queued",
      "sending",
      "delivered",
    ]);
  });

  it("an API send of the same email has the same timeline and source api", async () => {
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: { from: `orders@${DOMAIN}`, to: "api-buyer@example.net", subject: "Hi", text: "Hi" },
    });
    const message = await receivedFor("api-buyer@example.net");
    expect(await dkimResults(message)).toEqual([{ result: "pass", domain: DOMAIN }]);
    const logged = await loggedOnce(String(sent.json.messageId), "delivered");
    expect(logged.json).toMatchObject({ source: "api", status: "delivered" });
    expect((logged.json.events as Array<{ type: string }>).map((e) => e.type)).toEqual([
      "queued",
      "sending",
      "delivered",
    ]);
  });

  it("fails an email to a suppressed recipient with `suppressed`, as the API does, sending nothing", async () => {
    await addSuppressions(db.pool, "shop", [{ address: "gone@example.net", reason: "hard_bounce" }]);
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtp.tlsPort,
      secure: true,
      tls: { ca: smtp.ca, servername: "localhost" },
      auth: { user: "app", pass: key },
    });
    const info = await transport.sendMail({
      from: `orders@${DOMAIN}`,
      to: "gone@example.net",
      subject: "x",
      text: "x",
    });
    transport.close();
    const id = queuedId(info.response);
    const logged = await loggedOnce(id, "failed");
    expect(logged.json).toMatchObject({ status: "failed", failureReason: "suppressed", source: "smtp" });
    expect(sink.messages.some((m) => m.envelope.to.includes("gone@example.net"))).toBe(false);
  });

  it.skipIf(!hasSwaks)("swaks over STARTTLS with AUTH LOGIN", async () => {
    const { stdout } = await run("swaks", [
      ...["--server", `127.0.0.1:${smtp.port}`, "-tls", "--auth", "LOGIN"],
      ...["--auth-user", "jenkins", "--auth-password", key],
      ...["--from", `ci@${DOMAIN}`, "--to", "swaks@example.net"],
      ...["--header", "Subject: Build 12 passed", "--body", "All green."],
    ]);
    expect(stdout).toMatch(/<~ {1,2}250 2\.0\.0 Queued as /);
    const message = await receivedFor("swaks@example.net");
    expect(message.parsed.subject).toBe("Build 12 passed");
    expect(await dkimResults(message)).toEqual([{ result: "pass", domain: DOMAIN }]);
  });

  it.skipIf(!hasPython)(
    "Python's smtplib over implicit TLS (465-style) and STARTTLS (587-style)",
    async () => {
      const script = `
import smtplib, ssl, sys
from email.message import EmailMessage
port, tls_port, ca, key, domain = sys.argv[1:6]
context = ssl.create_default_context(cafile=ca)
for name, client in (("implicit", lambda: smtplib.SMTP_SSL("localhost", int(tls_port), context=context)),
                     ("starttls", lambda: smtplib.SMTP("localhost", int(port)))):
    msg = EmailMessage()
    msg["From"] = f"Keycloak <id@{domain}>"
    msg["To"] = f"py-{name}@example.net"
    msg["Subject"] = f"Verify your email ({name})"
    msg.set_content("Click the link.")
    with client() as smtp:
        if name == "starttls":
            smtp.starttls(context=context)
        smtp.login("keycloak", key)
        smtp.send_message(msg)
print("sent")
`;
      const { stdout } = await run("python3", [
        "-c",
        script,
        String(smtp.port),
        String(smtp.tlsPort),
        smtp.caFile,
        key,
        DOMAIN,
      ]);
      expect(stdout.trim()).toBe("sent");
      for (const name of ["implicit", "starttls"]) {
        const message = await receivedFor(`py-${name}@example.net`);
        expect(message.parsed.subject).toBe(`Verify your email (${name})`);
        expect(await dkimResults(message)).toEqual([{ result: "pass", domain: DOMAIN }]);
      }
    },
  );
});
