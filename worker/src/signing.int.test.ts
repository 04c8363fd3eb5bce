import { deriveVerpKey, readVerpAddress } from "@mailroom/core/bounces";
import { createDomain, recordVerification } from "@mailroom/core/domains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { createSigner, signingPlaceFor } from "./signing.ts";

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

/** Records every required check of `domain` as verified, as the domain checks would; its status after. */
async function markVerified(domain: Awaited<ReturnType<typeof createDomain>>) {
  const checks = domain.records
    .filter((r) => r.required)
    .map((r) => ({
      purpose: r.purpose,
      name: r.name,
      required: true,
      status: "verified" as const,
      reason: null,
    }));
  return (await recordVerification(db.pool, domain.id, checks))?.domain.status;
}

describe("createSigner", () => {
  it("signs the very next message once the From domain is verified (no cached 'unverified')", async () => {
    const signer = createSigner(db.pool, KEK);
    const domain = await createDomain(db.pool, KEK, { account: "late", name: "late.test" });
    const before = await signer.prepare("late", "a@late.test", RAW, EMAIL_ID);
    expect(before.signed).toBe(false);
    expect(before.envelopeFrom("b@example.test")).toBe("a@late.test");

    expect(await markVerified(domain)).toBe("verified");

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

  it("signs the same bytes on the event loop as on the thread pool, and only a reserved-only process does so", async () => {
    await markVerified(await createDomain(db.pool, KEK, { account: "loop", name: "loop.test" }));
    const raw = Buffer.from("From: a@loop.test\r\nTo: b@example.test\r\nSubject: hi\r\n\r\nhello\r\n");
    const pooled = createSigner(db.pool, KEK, undefined, "thread-pool");
    const looped = createSigner(db.pool, KEK, undefined, "event-loop");
    // RSA PKCS#1 v1.5 is deterministic: within one second (the signature's t=) both give the same bytes.
    for (let attempt = 0; ; attempt++) {
      const [a, b] = [
        await pooled.prepare("loop", "a@loop.test", raw, EMAIL_ID),
        await looped.prepare("loop", "a@loop.test", raw, EMAIL_ID),
      ];
      const times = [a, b].map((p) => /\bt=(\d+)/.exec(p.raw.toString())?.[1]);
      if (times[0] !== times[1] && attempt < 3) continue;
      expect(b.signed).toBe(true);
      expect(b.raw.toString()).toBe(a.raw.toString());
      break;
    }
    expect(signingPlaceFor(["reserved"])).toBe("event-loop");
    expect(signingPlaceFor(["delivery", "reserved", "background"])).toBe("thread-pool");
    expect(signingPlaceFor(["delivery"])).toBe("thread-pool");
  });
});
