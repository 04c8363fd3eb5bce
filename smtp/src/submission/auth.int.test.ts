import { createKey, revokeKey } from "@mailroom/core/keys";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { RawSmtpClient } from "../../../test/support/smtp-client.ts";
import { type SubmissionStack, startSubmissionStack } from "../../../test/support/submission.ts";

let db: TestDatabase;
let smtp: SubmissionStack;
let key: string;
let clock = new Date();

beforeAll(async () => {
  db = await createTestDatabase();
  smtp = await startSubmissionStack(db, {
    now: () => clock,
    // Small numbers, so the slow-down and the block are reached in a few attempts.
    authThrottle: { freeFailures: 2, baseDelayMs: 20, maxDelayMs: 50, blockAfter: 4, windowMs: 60_000 },
  });
  key = (await createKey(db.pool, { account: "acme", scopes: ["send"], expires: "never" })).fullKey;
});
afterAll(async () => {
  await smtp?.close();
  await db?.drop();
});

/** A session over STARTTLS, ready for AUTH. */
async function secureSession(): Promise<RawSmtpClient> {
  const client = await RawSmtpClient.open(smtp.port);
  await client.startTls(smtp.ca);
  return client;
}

const failures = async (reason: string) =>
  (await smtp.metrics.smtpAuthFailures.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

describe("AUTH on the submission ports", () => {
  it("accepts an API key of scope send as the password, with any username, over STARTTLS", async () => {
    const client = await secureSession();
    expect((await client.auth(key, "grafana")).text).toMatch(/^235 2\.7\.0 /);
    client.close();
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtp.port,
      secure: false,
      requireTLS: true,
      tls: { ca: smtp.ca, servername: "localhost" },
      auth: { user: "whatever-the-app-insists-on", pass: key },
    });
    const info = await transport.sendMail({
      from: "App <app@acme.test>",
      to: "someone@example.test",
      subject: "Over 587",
      text: "Hi",
    });
    transport.close();
    expect(info.response).toMatch(/^250 2\.0\.0 Queued as [0-9a-f-]{36}$/);
    const id = info.response.split(" ").at(-1);
    const { rows } = await db.pool.query("select source, account, status from emails where id = $1", [id]);
    expect(rows).toEqual([{ source: "smtp", account: "acme", status: "queued" }]);
  });

  it("refuses AUTH before STARTTLS on the 587-style port, and advertises STARTTLS", async () => {
    const client = await RawSmtpClient.open(smtp.port);
    const ehlo = await client.command("EHLO client.test");
    expect(ehlo.lines).toContain("STARTTLS");
    expect((await client.auth(key)).text).toMatch(/^538 5\.7\.0 /);
    expect((await client.command(`AUTH LOGIN`)).code).toBe(538);
    client.close();
  });

  it("refuses MAIL FROM and RCPT TO without AUTH (no relay for strangers), on both ports", async () => {
    for (const client of [
      await secureSession(),
      await RawSmtpClient.open(smtp.tlsPort, { tls: true, ca: smtp.ca }),
    ]) {
      await client.command("EHLO client.test");
      expect((await client.command("MAIL FROM:<a@acme.test>")).text).toMatch(/^530 5\.7\.0 /);
      expect((await client.command("RCPT TO:<victim@example.test>")).text).toMatch(/^530 5\.7\.0 /);
      client.close();
    }
  });

  it("answers 535 5.7.8 alike for a wrong secret, an unknown key id and a non-key, counting each", async () => {
    const before = await failures("invalid");
    const client = await secureSession();
    const wrongSecret = key.replace(/.$/, (c) => (c === "a" ? "b" : "a"));
    const unknownId = `mrk_${"Z".repeat(12)}_${key.slice(-32)}`;
    const texts = [];
    for (const password of [wrongSecret, unknownId]) texts.push((await client.auth(password)).text);
    expect(texts).toEqual([
      "535 5.7.8 Authentication credentials invalid",
      "535 5.7.8 Authentication credentials invalid",
    ]);
    client.close();
    expect(await failures("invalid")).toBe(before + 2);
  });

  it("tells a caller who proved the secret that the key is revoked, expired or lacks scope send: 535 5.7.8", async () => {
    const revoked = await createKey(db.pool, { account: "acme", scopes: ["send"], expires: "never" });
    await revokeKey(db.pool, revoked.key.keyId);
    const expiring = await createKey(db.pool, { account: "acme", scopes: ["send"], expires: "30d" });
    const domainsOnly = await createKey(db.pool, { account: "acme", scopes: ["domains"], expires: "never" });
    const client = await secureSession();
    expect((await client.auth(revoked.fullKey)).text).toMatch(/^535 5\.7\.8 .*revoked/);
    expect((await client.auth(domainsOnly.fullKey)).text).toMatch(/^535 5\.7\.8 .*`send` scope/);
    clock = new Date(Date.now() + 31 * 24 * 3600 * 1000);
    expect((await client.auth(expiring.fullKey)).text).toMatch(/^535 5\.7\.8 .*expired/);
    clock = new Date();
    client.close();
  });

  it("takes a revoke into account on the next MAIL FROM of an open session", async () => {
    const { fullKey, key: record } = await createKey(db.pool, {
      account: "acme",
      scopes: ["send"],
      expires: "never",
    });
    const client = await secureSession();
    expect((await client.auth(fullKey)).code).toBe(235);
    expect((await client.command("MAIL FROM:<app@acme.test>")).code).toBe(250);
    expect((await client.command("RSET")).code).toBe(250);
    await revokeKey(db.pool, record.keyId);
    expect((await client.command("MAIL FROM:<app@acme.test>")).text).toMatch(/^530 5\.7\.0 .*revoked/);
    client.close();
  });

  it("maps the key's rate limit to 451 4.7.1 at MAIL FROM, counted per message", async () => {
    const limited = await createKey(db.pool, {
      account: "limited",
      scopes: ["send"],
      expires: "never",
      rateLimitPerSecond: 2,
    });
    const client = await secureSession();
    expect((await client.auth(limited.fullKey)).code).toBe(235);
    // The clock stands still in this file: all three messages fall in one second's window.
    const codes = [];
    for (let i = 0; i < 3; i++) {
      codes.push((await client.command("MAIL FROM:<app@limited.test>")).text.slice(0, 9));
      await client.command("RSET");
    }
    expect(codes).toEqual(["250 2.1.0", "250 2.1.0", "451 4.7.1"]);
    client.close();
  });
});

describe("a peer that keeps failing AUTH", () => {
  it("slows down, then refuses with 421 4.7.0, a peer that keeps failing", async () => {
    const client = await secureSession();
    const replies: string[] = [];
    // Two failures already counted above; two more reach the block.
    for (let i = 0; i < 3 && !client.closed; i++)
      replies.push((await client.auth("mrk_nope")).text.slice(0, 9));
    expect(replies).toEqual(["535 5.7.8", "535 5.7.8", "421 4.7.0"]);
    await client.waitClosed();
    // A new connection from the same address is refused at once, even with the right key.
    const again = await RawSmtpClient.open(smtp.port).catch((error: Error) => error);
    expect(String(again instanceof Error ? again.message : "")).toMatch(/421 4\.7\.0|closed/);
    expect(await failures("blocked")).toBeGreaterThan(0);
  });
});
