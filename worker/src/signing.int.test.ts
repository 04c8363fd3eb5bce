import { deriveVerpKey, readVerpAddress } from "@mailroom/core/bounces";
import { createDomain, recordVerification } from "@mailroom/core/domains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { createSigner } from "./signing.ts";

const KEK = Buffer.alloc(32, 3);
const EMAIL_ID = "0193a9c2-0000-7000-8000-00000000abcd";
const RAW = Buffer.from("From: a@late.test\r\nTo: b@example.test\r\nSubject: hi\r\n\r\nhello\r\n");

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe("createSigner", () => {
  it("signs the very next message once the From domain is verified (no cached 'unverified')", async () => {
    const signer = createSigner(db.pool, KEK);
    const domain = await createDomain(db.pool, KEK, { account: "late", name: "late.test" });
    const before = await signer.prepare("late", "a@late.test", RAW, EMAIL_ID);
    expect(before.signed).toBe(false);
    expect(before.envelopeFrom("b@example.test")).toBe("a@late.test");

    const checks = domain.records
      .filter((r) => r.required)
      .map((r) => ({
        purpose: r.purpose,
        name: r.name,
        required: true,
        status: "verified" as const,
        reason: null,
      }));
    expect((await recordVerification(db.pool, domain.id, checks))?.domain.status).toBe("verified");

    const after = await signer.prepare("late", "a@late.test", RAW, EMAIL_ID);
    expect(after.signed).toBe(true);
    expect(after.raw.toString()).toMatch(/^DKIM-Signature: /m);
    // Each recipient's envelope sender is a signed VERP address on the bounce domain naming the recipient.
    const verpKey = deriveVerpKey(KEK);
    const [forB, forC] = [after.envelopeFrom("b@example.test"), after.envelopeFrom("c@example.test")];
    expect(forB).toMatch(/@bounces\.late\.test$/);
    expect(forB).not.toBe(forC);
    const recipients = ["b@example.test", "c@example.test"];
    expect(readVerpAddress(verpKey, forB, recipients)).toEqual({
      emailId: EMAIL_ID,
      recipient: "b@example.test",
    });
    expect(readVerpAddress(verpKey, forC, recipients)).toEqual({
      emailId: EMAIL_ID,
      recipient: "c@example.test",
    });
    // Without the recipient among those given, the token names nobody: it does not verify.
    expect(readVerpAddress(verpKey, forB, ["c@example.test"])).toBeUndefined();
  });
});
