import { applyAccountPolicy, pauseAccount, resumeAccount } from "@mailroom/core/accounts";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { RawSmtpClient } from "../../../test/support/smtp-client.ts";
import { type SubmissionStack, startSubmissionStack } from "../../../test/support/submission.ts";

// Issue 31: the account's guard rails answered by the SMTP door as 4xx, so the client keeps the message.
let db: TestDatabase;
let smtp: SubmissionStack;
// The door's clock, mid-day: a UTC midnight between two submissions would start a new day's quota.
const NOON = new Date("2031-05-10T12:00:00.000Z");

beforeAll(async () => {
  db = await createTestDatabase();
  smtp = await startSubmissionStack(db, { now: () => NOON });
});
afterAll(async () => {
  await smtp?.close();
  await db?.drop();
});

async function session(key: string): Promise<RawSmtpClient> {
  const client = await RawSmtpClient.open(smtp.tlsPort, { tls: true, ca: smtp.ca });
  await client.command("EHLO client.test");
  expect((await client.auth(key)).code).toBe(235);
  return client;
}

/** MAIL, RCPT, DATA and a message; the first refusal or the reply to the final dot. */
async function submit(client: RawSmtpClient, subject: string) {
  const mail = await client.command("MAIL FROM:<app@acme.test>");
  if (mail.code !== 250) return mail;
  expect((await client.command("RCPT TO:<you@example.test>")).code).toBe(250);
  expect((await client.command("DATA")).code).toBe(354);
  client.write(`From: App <app@acme.test>\r\nTo: you@example.test\r\nSubject: ${subject}\r\n\r\nHello.\r\n`);
  client.write(".\r\n");
  return client.read();
}

const emailsOf = async (account: string) =>
  Number((await db.pool.query("select count(*) from emails where account = $1", [account])).rows[0].count);

describe("the submission door and the account's policy", () => {
  it("answers 452 4.7.1 once the day's quota is spent, counting with the API's counters", async () => {
    const { fullKey } = await createKey(db.pool, {
      account: "smtp-quota",
      scopes: ["send"],
      expires: "never",
    });
    await applyAccountPolicy(db.pool, "smtp-quota", "smtp-quota/policy", { emailsPerDay: 2 });
    const client = await session(fullKey);
    try {
      expect((await submit(client, "one")).code).toBe(250);
      expect((await submit(client, "two")).code).toBe(250);
      const third = await submit(client, "three");
      expect(third.code).toBe(452);
      expect(third.text).toMatch(/4\.7\.1 Daily quota reached: this account may send 2 emails per UTC day/);
      // Counted in the door's day, not the machine's.
      expect(third.text).toContain("The quota resets at 2031-05-11T00:00:00.000Z.");
    } finally {
      client.close();
    }
    expect(await emailsOf("smtp-quota")).toBe(2);
  });

  it("answers 451 4.7.1 at MAIL FROM while the account is paused, and accepts again after a resume", async () => {
    const { fullKey } = await createKey(db.pool, {
      account: "smtp-paused",
      scopes: ["send"],
      expires: "never",
    });
    const client = await session(fullKey);
    try {
      await pauseAccount(db.pool, "smtp-paused", { reason: "test", by: "test", now: new Date() });
      const refused = await submit(client, "paused");
      expect(refused.code).toBe(451);
      expect(refused.text).toMatch(/4\.7\.1 Sending is paused for account smtp-paused/);
      await resumeAccount(db.pool, "smtp-paused", { by: "test", now: new Date() });
      expect((await submit(client, "resumed")).code).toBe(250);
    } finally {
      client.close();
    }
    expect(await emailsOf("smtp-paused")).toBe(1);
  });
});
