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
    expect(before).toMatchObject({ signed: false, envelopeFrom: "a@late.test" });

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
    // The envelope sender is the signed VERP address on the bounce domain.
    expect(after.envelopeFrom).toMatch(/@bounces\.late\.test$/);
    expect(readVerpAddress(deriveVerpKey(KEK), after.envelopeFrom)).toBe(EMAIL_ID);
  });
});
