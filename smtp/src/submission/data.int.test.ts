import { createPool, type Pool } from "@mailroom/core/db";
import { createKey, revokeKey } from "@mailroom/core/keys";
import nodemailer from "nodemailer";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { startAnswerCutProxy } from "../../../test/support/pg-answer-cut.ts";
import { RawSmtpClient } from "../../../test/support/smtp-client.ts";
import { type SubmissionStack, startSubmissionStack } from "../../../test/support/submission.ts";

const LIMIT = 8192;

let db: TestDatabase;
let smtp: SubmissionStack;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  smtp = await startSubmissionStack(db, { env: { MAILROOM_BODY_LIMIT_BYTES: String(LIMIT) } });
  key = (await createKey(db.pool, { account: "acme", scopes: ["send"], expires: "never" })).fullKey;
});
afterAll(async () => {
  await smtp?.close();
  await db?.drop();
});

/** An authenticated session on the implicit-TLS port. */
async function session(stack = smtp): Promise<RawSmtpClient> {
  const client = await RawSmtpClient.open(stack.tlsPort, { tls: true, ca: stack.ca });
  await client.command("EHLO client.test");
  expect((await client.auth(key)).code).toBe(235);
  return client;
}

const message = (lines: string[]) => `${lines.join("\r\n")}\r\n`;
const simple = (subject: string, extra: string[] = [], from = "app@acme.test") =>
  message([`From: App <${from}>`, `To: you@example.test`, `Subject: ${subject}`, ...extra, "", "Hello."]);

/** MAIL, RCPT, DATA and the message; the reply to the final dot. */
async function submit(client: RawSmtpClient, data: string | Buffer, mailFrom = "MAIL FROM:<app@acme.test>") {
  expect((await client.command(mailFrom)).code).toBe(250);
  expect((await client.command("RCPT TO:<you@example.test>")).code).toBe(250);
  expect((await client.command("DATA")).code).toBe(354);
  client.write(data);
  client.write(".\r\n");
  return client.read();
}

const emailCount = async () => Number((await db.pool.query("select count(*) from emails")).rows[0].count);

describe("the message is the email", () => {
  it("keeps the client's MIME, Message-ID and attachments, drops Bcc, and takes recipients from the envelope", async () => {
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtp.tlsPort,
      secure: true,
      tls: { ca: smtp.ca, servername: "localhost" },
      auth: { user: "app", pass: key },
    });
    const info = await transport.sendMail({
      from: "Jörg <app@acme.test>",
      to: "you@example.test",
      bcc: "hidden@example.test",
      messageId: "<invoice-42@app.acme.test>",
      subject: "Grüße",
      text: "Anbei.",
      attachments: [{ filename: "a.txt", content: "attached" }],
    });
    transport.close();
    const id = info.response.split(" ").at(-1);
    const { rows } = await db.pool.query(
      `select e.to_addresses, e.bcc_addresses, e.subject, e.from_header, e.message_id_header, m.content
       from emails e join email_raw_messages m on m.email_id = e.id where e.id = $1`,
      [id],
    );
    const row = rows[0];
    expect(row.to_addresses.sort()).toEqual(["hidden@example.test", "you@example.test"]);
    expect(row.subject).toBe("Grüße");
    expect(row.from_header).toBe('"Jörg" <app@acme.test>');
    expect(row.message_id_header).toBe("<invoice-42@app.acme.test>");
    const raw = row.content.toString("latin1");
    expect(raw).not.toMatch(/^bcc:/im);
    expect(raw).not.toContain("hidden@example.test");
    expect(raw).toMatch(/Content-Disposition: attachment; filename=a\.txt/);
    expect(raw).toContain("Message-ID: <invoice-42@app.acme.test>");
  });

  it("drops a Bcc header the client left in (folded over lines too), keeping every other byte", async () => {
    const client = await session();
    expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
    expect((await client.command("RCPT TO:<you@example.test>")).code).toBe(250);
    expect((await client.command("RCPT TO:<hidden@example.test>")).code).toBe(250);
    expect((await client.command("DATA")).code).toBe(354);
    const kept = ["From: App <app@acme.test>", "To: you@example.test", "Subject: Bcc", "X-Kept: yes"];
    client.write(
      message([
        kept[0] as string,
        "Bcc: hidden@example.test,",
        " other@example.test",
        ...kept.slice(1),
        "",
        "Body.",
      ]),
    );
    client.write(".\r\n");
    const id = (await client.read()).text.split(" ").at(-1);
    const { rows } = await db.pool.query("select content from email_raw_messages where email_id = $1", [id]);
    expect(rows[0].content.toString()).toBe(message([...kept, "", "Body."]));
    client.close();
  });

  it("answers a repeated Message-ID with the first email's id and stores nothing twice", async () => {
    const data = simple("Once", ["Message-ID: <once@app.acme.test>"]);
    const client = await session();
    const first = await submit(client, data);
    const before = await emailCount();
    const again = await submit(client, data);
    expect(first.text).toMatch(/^250 2\.0\.0 Queued as /);
    expect(again.text).toBe(
      `250 2.0.0 Duplicate of ${first.text.split(" ").at(-1)}: accepted before, not sent again`,
    );
    expect(await emailCount()).toBe(before);
    const other = await submit(client, simple("Another body", ["Message-ID: <once@app.acme.test>"]));
    expect(other.text).toMatch(/^550 5\.7\.0 .*Message-ID/);
    expect(await emailCount()).toBe(before);
    client.close();
  });

  it("refuses a message without a From header, or with two addresses in it, with 554 5.6.0", async () => {
    const client = await session();
    const before = await emailCount();
    expect((await submit(client, message(["To: you@example.test", "Subject: x", "", "x"]))).text).toMatch(
      /^554 5\.6\.0 From: /,
    );
    await client.command("RSET");
    const two = message(["From: a@acme.test, b@acme.test", "Subject: x", "", "x"]);
    expect((await submit(client, two)).text).toMatch(/^554 5\.6\.0 From: /);
    expect(await emailCount()).toBe(before);
    client.close();
  });
});

describe("limits", () => {
  it("advertises SIZE and answers 552 5.3.4 to a declared or an actual size over it", async () => {
    const client = await RawSmtpClient.open(smtp.tlsPort, { tls: true, ca: smtp.ca });
    expect((await client.command("EHLO client.test")).lines).toContain(`SIZE ${LIMIT}`);
    expect((await client.auth(key)).code).toBe(235);
    expect((await client.command(`MAIL FROM:<app@acme.test> SIZE=${LIMIT + 1}`)).text).toMatch(
      /^552 5\.3\.4 /,
    );
    const before = await emailCount();
    const header = simple("Size");
    const filler = (bytes: number) => `${"x".repeat(76)}\r\n`.repeat(Math.floor(bytes / 78));
    const under = header + filler(LIMIT - header.length - 100);
    expect((await submit(client, under)).text).toMatch(/^250 /);
    const over = header + filler(LIMIT + 200);
    expect((await submit(client, over)).text).toMatch(/^552 5\.3\.4 /);
    expect(await emailCount()).toBe(before + 1);
    client.close();
  });

  it("accepts 50 of thousands of pipelined RCPTs (452 4.5.3 for the rest) and sends to those 50", async () => {
    const client = await session();
    client.write("MAIL FROM:<app@acme.test>\r\n");
    client.write(Array.from({ length: 2000 }, (_, i) => `RCPT TO:<r${i}@example.test>\r\n`).join(""));
    expect((await client.read()).code).toBe(250);
    const codes = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const reply = (await client.read()).text.slice(0, 9);
      codes.set(reply, (codes.get(reply) ?? 0) + 1);
    }
    expect(Object.fromEntries(codes)).toEqual({ "250 2.1.5": 50, "452 4.5.3": 1950 });
    expect((await client.command("DATA")).code).toBe(354);
    client.write(`${simple("Many")}.\r\n`);
    const id = (await client.read()).text.split(" ").at(-1);
    const { rows } = await db.pool.query("select cardinality(to_addresses) as n from emails where id = $1", [
      id,
    ]);
    expect(rows[0].n).toBe(50);
    client.close();
  });
});

describe("hostile input", () => {
  it.each([
    ["a bare CR", "From: app@acme.test\r\nSubject: x\r\r\n\r\nx", /bare CR/],
    [
      "a bare CR before a dot",
      "From: app@acme.test\r\nSubject: x\r\n\r\nx\r.\rMAIL FROM:<a@b.test>",
      /bare CR/,
    ],
    ["a NUL byte", "From: app@acme.test\r\nSubject: x\r\n\r\nx\u0000y", /NUL/],
    ["a 999-character line", `From: app@acme.test\r\nSubject: x\r\n\r\n${"y".repeat(999)}`, /998/],
  ])("refuses a message with %s (554 5.6.0), storing nothing", async (_name, data, problem) => {
    const client = await session();
    const before = await emailCount();
    const reply = await submit(client, Buffer.from(`${data}\r\n`, "latin1"));
    expect(reply.text).toMatch(/^554 5\.6\.0 /);
    expect(reply.text).toMatch(problem);
    expect(await emailCount()).toBe(before);
    // The session goes on: the next, valid message is accepted.
    expect((await submit(client, simple("After"))).code).toBe(250);
    client.close();
  });

  it.each([
    ["MAIL FROM", "MAIL FROM:<app@acme.test,evil@attacker.test>"],
    ["MAIL FROM", "MAIL FROM:<app@acme.test>Bcc:evil@attacker.test>"],
    ["RCPT TO", "RCPT TO:<you@example.test,evil@attacker.test>"],
    ["RCPT TO", "RCPT TO:<you@example.test\u000bBcc: evil@attacker.test>"],
    ["RCPT TO", 'RCPT TO:<"you\u0000"@example.test>'],
    ["RCPT TO", "RCPT TO:<you@example.test;Bcc=evil@attacker.test>"],
  ])(
    "refuses header material smuggled into the envelope (%s: %j) with a 5xx, adding no recipient",
    async (_at, line) => {
      const client = await session();
      const before = await emailCount();
      if (line.startsWith("RCPT")) expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
      const reply = await client.command(line);
      expect(reply.text).toMatch(/^5(01|53) /);
      // The session goes on; only what was accepted is in the envelope of the next message.
      if (line.startsWith("MAIL")) expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
      expect((await client.command("RCPT TO:<you@example.test>")).code).toBe(250);
      expect((await client.command("DATA")).code).toBe(354);
      client.write(`${simple("Envelope")}.\r\n`);
      expect((await client.read()).code).toBe(250);
      const { rows } = await db.pool.query(
        "select from_address, to_addresses from emails order by created_at desc limit 1",
      );
      expect(rows[0].to_addresses).toEqual(["you@example.test"]);
      expect(await emailCount()).toBe(before + 1);
      client.close();
    },
  );

  it("takes bare LF line ends as Postfix does, storing them as CRLF", async () => {
    const client = await session();
    const reply = await submit(
      client,
      "From: app@acme.test\nTo: you@example.test\nSubject: LF\n\nline one\nline two\r\n",
    );
    expect(reply.code).toBe(250);
    const { rows } = await db.pool.query("select content from email_raw_messages where email_id = $1", [
      reply.text.split(" ").at(-1),
    ]);
    expect(rows[0].content.toString()).toBe(
      message(["From: app@acme.test", "To: you@example.test", "Subject: LF", "", "line one", "line two"]),
    );
    client.close();
  });

  it.each([
    ["<LF>.<LF>", "\n.\n"],
    ["<LF>.<CRLF>", "\n.\r\n"],
    ["<CRLF>.<LF>", "\r\n.\n"],
  ])("does not end DATA at %s: what follows stays content and no command is smuggled", async (_name, dot) => {
    const client = await session();
    const before = await emailCount();
    const smuggled = `RCPT TO:<spy@evil.test>\r\nDATA\r\nFrom: app@acme.test\r\n\r\nsmuggled\r\n`;
    client.write(`MAIL FROM:<app@acme.test>\r\nRCPT TO:<you@example.test>\r\nDATA\r\n`);
    expect([(await client.read()).code, (await client.read()).code, (await client.read()).code]).toEqual([
      250, 250, 354,
    ]);
    client.write(
      `From: app@acme.test\r\nSubject: Smuggle\r\n\r\nbody${dot}MAIL FROM:<app@acme.test>\r\n${smuggled}.\r\n`,
    );
    const reply = await client.read();
    expect(reply.code).toBe(250);
    expect(await emailCount()).toBe(before + 1);
    const { rows } = await db.pool.query(
      "select e.to_addresses, m.content from emails e join email_raw_messages m on m.email_id = e.id where e.id = $1",
      [reply.text.split(" ").at(-1)],
    );
    expect(rows[0].to_addresses).toEqual(["you@example.test"]);
    expect(rows[0].content.toString()).toContain(
      "\r\n.\r\nMAIL FROM:<app@acme.test>\r\nRCPT TO:<spy@evil.test>",
    );
    client.close();
  });

  it("takes undeclared 8-bit data (no BODY=8BITMIME), as Python's send_message and Django send it", async () => {
    const client = await session();
    const data = Buffer.from(
      simple("Prête", ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]).replace(
        "Hello.",
        "Une journée prête.",
      ),
      "utf8",
    );
    const reply = await submit(client, data);
    expect(reply.code).toBe(250);
    const { rows } = await db.pool.query("select subject from emails where id = $1", [
      reply.text.split(" ").at(-1),
    ]);
    expect(rows[0].subject).toBe("Prête");
    client.close();
  });

  it("takes a non-ASCII address with SMTPUTF8, and refuses it without, with 553 5.6.7", async () => {
    const client = await session();
    expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
    expect((await client.command("RCPT TO:<josé@example.test>")).text).toMatch(/^553 5\.6\.7 .*SMTPUTF8/);
    await client.command("RSET");
    expect((await client.command("MAIL FROM:<app@acme.test> SMTPUTF8")).code).toBe(250);
    expect((await client.command("RCPT TO:<josé@example.test>")).code).toBe(250);
    expect((await client.command("DATA")).code).toBe(354);
    client.write(
      Buffer.from(
        `${message(["From: app@acme.test", "To: josé@example.test", "Subject: UTF-8", "", "Olá"])}.\r\n`,
      ),
    );
    const reply = await client.read();
    expect(reply.code).toBe(250);
    const { rows } = await db.pool.query("select to_addresses from emails where id = $1", [
      reply.text.split(" ").at(-1),
    ]);
    expect(rows[0].to_addresses).toEqual(["josé@example.test"]);
    client.close();
  });

  it("drops a Resent-Bcc header as it drops Bcc", async () => {
    const client = await session();
    const reply = await submit(
      client,
      simple("Resent", ["Resent-From: app@acme.test", "Resent-Bcc: hidden@example.test"]),
    );
    const { rows } = await db.pool.query("select content from email_raw_messages where email_id = $1", [
      reply.text.split(" ").at(-1),
    ]);
    expect(rows[0].content.toString()).not.toMatch(/hidden@example\.test|^resent-bcc:/im);
    expect(rows[0].content.toString()).toContain("Resent-From: app@acme.test");
    client.close();
  });

  it("refuses the message, storing nothing, when the key is revoked between MAIL FROM and the final dot", async () => {
    const { fullKey, key: record } = await createKey(db.pool, {
      account: "acme",
      scopes: ["send"],
      expires: "never",
    });
    const client = await RawSmtpClient.open(smtp.tlsPort, { tls: true, ca: smtp.ca });
    await client.command("EHLO client.test");
    expect((await client.auth(fullKey)).code).toBe(235);
    const before = await emailCount();
    expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
    expect((await client.command("RCPT TO:<you@example.test>")).code).toBe(250);
    expect((await client.command("DATA")).code).toBe(354);
    client.write(simple("Revoked meanwhile"));
    await revokeKey(db.pool, record.keyId);
    client.write(".\r\n");
    expect((await client.read()).text).toMatch(/^530 5\.7\.0 .*revoked/);
    expect(await emailCount()).toBe(before);
    client.close();
  });

  it("takes 8-bit data declared with BODY=8BITMIME, and a 998-character line", async () => {
    const client = await session();
    const data = Buffer.from(simple("Grüße", ["", "y".repeat(998)]), "utf8");
    expect((await submit(client, data, "MAIL FROM:<app@acme.test> BODY=8BITMIME")).code).toBe(250);
    client.close();
  });

  it.each([
    "RCPT TO:<you@example.test>, <other@example.test>",
    "RCPT TO:<you@example.test%0d%0aBcc:spy@evil.test>",
    "RCPT TO:<you@[127.0.0.1]>",
    "RCPT TO:<you\u000b@example.test>",
    "RCPT TO:<not-an-address>",
  ])("refuses the envelope address of %j with a 5xx and keeps the session", async (line) => {
    const client = await session();
    expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
    const reply = await client.command(line);
    expect(reply.code).toBeGreaterThanOrEqual(500);
    expect(reply.code).toBeLessThan(600);
    expect((await client.command("RCPT TO:<you@example.test>")).code).toBe(250);
    client.close();
  });

  it("closes a session that sends a 100 KB command line with 421, and serves the next one", async () => {
    const client = await session();
    client.write(`RCPT TO:<${"a".repeat(100_000)}@example.test>\r\n`);
    expect((await client.read()).text).toMatch(/^421 .*too long/);
    await client.waitClosed();
    const next = await session();
    expect((await submit(next, simple("Still up"))).code).toBe(250);
    next.close();
  });

  it("answers a pipelined burst in order, data sent before 354 included, and stores each message once", async () => {
    const client = await session();
    const before = await emailCount();
    const one = (subject: string) =>
      `MAIL FROM:<app@acme.test>\r\nRCPT TO:<you@example.test>\r\nDATA\r\n${simple(subject)}.\r\n`;
    client.write(`${one("First")}${one("Second")}QUIT\r\n`);
    const replies = [];
    for (let i = 0; i < 9; i++) replies.push((await client.read()).code);
    expect(replies).toEqual([250, 250, 354, 250, 250, 250, 354, 250, 221]);
    expect(await emailCount()).toBe(before + 2);
  });
});

describe("timeouts and an unreachable database", () => {
  let slow: SubmissionStack;
  let pool: Pool;
  beforeAll(async () => {
    // Its own pool, so the database can be taken away from the SMTP server alone.
    pool = createPool({ url: db.url, max: 4, applicationName: "mailroom-smtp-down" });
    slow = await startSubmissionStack(db, {
      pool,
      env: { MAILROOM_SUBMISSION_TIMEOUT_SECONDS: "2", MAILROOM_ALLOW_UNVERIFIED_FROM: "false" },
    });
  });
  afterAll(async () => {
    await slow?.close();
    await pool?.end();
  });

  /** Postgres stops taking (and drops) the SMTP server's connections, or takes them again. */
  const database = async (up: boolean) => {
    const url = new URL(db.url);
    const name = url.pathname.slice(1);
    url.pathname = "/postgres";
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    try {
      await admin.query(`alter database ${name} allow_connections ${up}`);
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'mailroom-smtp-down'`,
      );
    } finally {
      await admin.end();
    }
  };

  it("refuses a From domain the account has not verified with 550 5.7.1", async () => {
    const client = await session(slow);
    const reply = await submit(client, simple("Unverified"));
    expect(reply.text).toMatch(/^550 5\.7\.1 From: acme\.test is not a verified sending domain/);
    client.close();
  });

  it("closes a session whose DATA never ends with 421, storing nothing", async () => {
    const client = await session(slow);
    const before = await emailCount();
    expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
    expect((await client.command("RCPT TO:<you@example.test>")).code).toBe(250);
    expect((await client.command("DATA")).code).toBe(354);
    client.write(simple("Never ends"));
    expect((await client.read()).text).toMatch(/^421 /);
    await client.waitClosed();
    expect(await emailCount()).toBe(before);
  });

  it("answers 451 4.3.0 at the end of DATA and at MAIL FROM, and 454 4.7.0 at AUTH, while Postgres is away", async () => {
    const client = await session(slow);
    expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
    expect((await client.command("RCPT TO:<you@example.test>")).code).toBe(250);
    expect((await client.command("DATA")).code).toBe(354);
    await database(false);
    try {
      // A domain no verdict is cached for: the sender check itself needs the database.
      client.write(`${simple("While down", [], "app@down.test")}.\r\n`);
      expect((await client.read()).text).toMatch(/^451 4\.3\.0 /);
      expect((await client.command("MAIL FROM:<app@acme.test>")).text).toMatch(/^451 4\.3\.0 /);
      const other = await RawSmtpClient.open(slow.tlsPort, { tls: true, ca: slow.ca });
      await other.command("EHLO client.test");
      expect((await other.auth(key)).text).toMatch(/^454 4\.7\.0 /);
      other.close();
    } finally {
      await database(true);
    }
    client.close();
  });
});

// A failover's worst moment for a submission (issue 28, ADR 0033): the accept committed and its answer was lost
// with the connection. The door cannot know it committed: 451, never 250 for what it has not seen stored and never
// 5xx; the client's retry of the same message (its Message-ID is the idempotency key) finds the commit.
describe("an accept whose answer is lost", () => {
  it("answers 451 4.3.0, and the retry of the same message is a duplicate of the one stored", async () => {
    const proxy = await startAnswerCutProxy(db.url);
    const pool = createPool({ url: proxy.url, max: 4, applicationName: "mailroom-smtp-lost-answer" });
    const cut = await startSubmissionStack(db, { pool });
    try {
      const client = await session(cut);
      const data = simple("Lost answer", ["Message-ID: <lost-answer-1@app.acme.test>"]);
      const lost = proxy.cutNextAnswer("mailroom_accept");
      expect((await submit(client, data)).text).toMatch(/^451 4\.3\.0 /);
      await lost;
      const { rows } = await db.pool.query<{ id: string }>(
        "select id from emails where message_id_header = '<lost-answer-1@app.acme.test>'",
      );
      expect(rows).toHaveLength(1);
      const retry = await submit(client, data);
      expect(retry.text).toBe(`250 2.0.0 Duplicate of ${rows[0]?.id}: accepted before, not sent again`);
      client.close();
    } finally {
      await cut.close();
      await pool.end();
      await proxy.close();
    }
  });
});
