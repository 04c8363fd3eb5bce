import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { RawSmtpClient } from "../../../test/support/smtp-client.ts";
import { type SubmissionStack, startSubmissionStack } from "../../../test/support/submission.ts";

// Issue 33 item 4 (ADR 0062): SMTP logins failing beyond the throttle's free ones leave one audit row per
// address and window (not one per guess), on the account of the key id the password named, with the peer.

let db: TestDatabase;
let smtp: SubmissionStack;
let keyId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  smtp = await startSubmissionStack(db, {
    authThrottle: { freeFailures: 2, baseDelayMs: 10, maxDelayMs: 20, maxWaitMs: 60_000, windowMs: 60_000 },
  });
  keyId = (await createKey(db.pool, { account: "acme", scopes: ["send"], expires: "never" })).key.keyId;
});
afterAll(async () => {
  await smtp?.close();
  await db?.drop();
});

describe("failed SMTP logins in the audit trail", () => {
  it("records the first failure beyond the free ones once, with the key's account, the key id and the peer", async () => {
    const client = await RawSmtpClient.open(smtp.port);
    await client.startTls(smtp.ca);
    await client.command("EHLO client.test");
    const audited = async () =>
      (
        await db.pool.query(
          "select account, actor_kind, actor, action, target, detail, client_ip from audit_events",
        )
      ).rows;
    for (let i = 0; i < 2; i++) expect((await client.auth(`mrk_${keyId}_${"x".repeat(32)}`)).code).toBe(535);
    expect(await audited()).toEqual([]);
    for (let i = 0; i < 4; i++) expect((await client.auth(`mrk_${keyId}_${"y".repeat(32)}`)).code).toBe(535);
    client.close();
    const rows = await audited();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      account: "acme",
      actor_kind: "smtp",
      actor: keyId,
      action: "smtp.auth_failed",
      target: keyId,
      detail: { failures: 3 },
    });
    expect(rows[0]?.client_ip).toMatch(/127\.0\.0\.1$/);
  });
});
