import { createKey, revokeKey } from "@mailroom/core/keys";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { RawSmtpClient } from "../../../test/support/smtp-client.ts";
import { type SubmissionStack, startSubmissionStack } from "../../../test/support/submission.ts";
import { createAuthThrottle } from "./auth-throttle.ts";

let db: TestDatabase;
let smtp: SubmissionStack;
let key: string;
let clock = new Date();

beforeAll(async () => {
  db = await createTestDatabase();
  smtp = await startSubmissionStack(db, {
    now: () => clock,
    // Small numbers, so the slow-down and the line limit are reached in a few attempts.
    authThrottle: { freeFailures: 2, baseDelayMs: 20, maxDelayMs: 50, maxWaitMs: 60_000, windowMs: 60_000 },
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
    expect((await client.command("EHLO client.test")).lines).toContain("AUTH PLAIN LOGIN");
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

  it("advertises no AUTH before STARTTLS on the 587-style port (smtpd_tls_auth_only), and refuses it", async () => {
    const client = await RawSmtpClient.open(smtp.port);
    const ehlo = await client.command("EHLO client.test");
    expect(ehlo.lines).toContain("STARTTLS");
    expect(ehlo.lines.filter((l) => l.startsWith("AUTH"))).toEqual([]);
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
  it("never locks a valid key out behind an address that failed more than 22 times", async () => {
    const before = await failures("invalid");
    const guesser = await secureSession();
    for (let i = 0; i < 25; i++) {
      // Each answer is 535, however many came before: slowed, never a lockout.
      expect((await guesser.auth(`mrk_${"G".repeat(12)}_${"x".repeat(32)}`)).text.slice(0, 9)).toBe(
        "535 5.7.8",
      );
    }
    guesser.close();
    expect(await failures("invalid")).toBe(before + 25);
    // The app behind the same address logs in with its key, on a new connection.
    const app = await secureSession();
    expect((await app.auth(key)).code).toBe(235);
    app.close();
  });
});

describe("parallel connections that fail AUTH from one address", () => {
  let lined: SubmissionStack;
  beforeAll(async () => {
    // Every failure spaces the next turn by 5 s; a turn more than 7 s away is refused at once.
    lined = await startSubmissionStack(db, {
      authThrottle: {
        freeFailures: 0,
        baseDelayMs: 5_000,
        maxDelayMs: 5_000,
        maxWaitMs: 7_000,
        windowMs: 60_000,
      },
    });
  });
  afterAll(async () => {
    await lined?.close();
  });

  it("are answered one after another, not side by side: the line fills and the rest hear 421 at once", async () => {
    const clients = await Promise.all(
      Array.from({ length: 6 }, () => RawSmtpClient.open(lined.tlsPort, { tls: true, ca: lined.ca })),
    );
    for (const client of clients) await client.command("EHLO client.test");
    // Sent together: the first is checked now, the second waits its turn 5 s on, the others would wait 10 s
    // or more and are refused without a database query. Each connection waiting alone would answer 535 six times.
    const replies = await Promise.all(
      clients.map(async (client, i) =>
        (await client.auth(`mrk_${String(i).padStart(12, "p")}_${"x".repeat(32)}`)).text.slice(0, 9),
      ),
    );
    expect(replies.sort()).toEqual([
      "421 4.7.0",
      "421 4.7.0",
      "421 4.7.0",
      "421 4.7.0",
      "535 5.7.8",
      "535 5.7.8",
    ]);
    for (const client of clients) client.close();
  });
});

describe("the failed-AUTH throttle, on a clock of its own", () => {
  const options = {
    freeFailures: 2,
    baseDelayMs: 1_000,
    maxDelayMs: 8_000,
    maxWaitMs: 20_000,
    windowMs: 60_000,
  };

  it("queues parallel attempts from one address one behind the other instead of letting them wait alike", () => {
    const t = 1_000_000;
    const throttle = createAuthThrottle(options, () => t);
    for (let i = 0; i < 3; i++) throttle.fail("10.0.0.1", "");
    // Five connections at the same instant: each waits its own turn, spaced by the doubling delay.
    const waits = Array.from({ length: 5 }, () => throttle.turn("10.0.0.1", ""));
    expect(waits).toEqual([
      { waitMs: 2_000 },
      { waitMs: 4_000 },
      { waitMs: 6_000 },
      { waitMs: 8_000 },
      { waitMs: 10_000 },
    ]);
    // A line longer than maxWaitMs is refused at once (421, no database work) rather than queued for ever.
    for (let i = 0; i < 5; i++) throttle.turn("10.0.0.1", "");
    expect(throttle.turn("10.0.0.1", "")).toEqual({ refused: true });
    // Another address is not held up.
    expect(throttle.turn("10.0.0.2", "")).toEqual({ waitMs: 0 });
  });

  it("lets a key proven from the address skip the address's line; guesses at that key id slow only it", () => {
    let t = 1_000_000;
    const throttle = createAuthThrottle(options, () => t);
    throttle.turn("10.0.0.1", "appKey000001");
    throttle.succeed("10.0.0.1", "appKey000001");
    for (let i = 0; i < 30; i++) throttle.fail("10.0.0.1", "guess0000001");
    const line = Array.from({ length: 3 }, () => throttle.turn("10.0.0.1", "other0000001"));
    expect(line).toEqual([{ waitMs: 8_000 }, { waitMs: 16_000 }, { refused: true }]);
    expect(throttle.turn("10.0.0.1", "appKey000001")).toEqual({ waitMs: 0 });
    for (let i = 0; i < 3; i++) throttle.fail("10.0.0.1", "appKey000001");
    expect(throttle.turn("10.0.0.1", "appKey000001")).toEqual({ waitMs: 2_000 });
    // Failures age out: after the window the address is free again.
    t += options.windowMs + options.maxWaitMs + 1;
    expect(throttle.turn("10.0.0.1", "other0000001")).toEqual({ waitMs: 0 });
  });
});
