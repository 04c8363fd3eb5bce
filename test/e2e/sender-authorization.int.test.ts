import { createDomain } from "@mailroom/core/domains";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, markDomainVerified, type TestDatabase } from "../support/db.ts";
import { type ApiStack, startApiStack, TEST_KEK } from "../support/stack.ts";

let db: TestDatabase;
let api: ApiStack;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "false" } });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const body = (from: string) => ({ from, to: "x@example.test", subject: "s", text: "t" });

describe("sending authorisation", () => {
  it("accepts only From domains verified in the key's own account", async () => {
    const owner = (await createKey(db.pool, { account: "owner", scopes: ["send"], expires: "never" }))
      .fullKey;
    const other = (await createKey(db.pool, { account: "other", scopes: ["send"], expires: "never" }))
      .fullKey;
    const domain = await createDomain(db.pool, TEST_KEK, { account: "owner", name: "mail.owner.test" });

    const pending = await api.request("POST", "/v1/send", { key: owner, body: body("a@mail.owner.test") });
    expect(pending.status).toBe(422);
    expect(pending.json.error).toBe("domain_not_verified");

    // Verified by DNS in the domain tests; here the state is set directly to test the send path alone.
    await markDomainVerified(db.pool, domain.id);
    // Verdicts are cached a few seconds; a fresh replica sees the change at once.
    const fresh = await startApiStack(db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "false" } });
    try {
      const ok = await fresh.request("POST", "/v1/send", {
        key: owner,
        body: body("Billing <a@mail.owner.test>"),
      });
      expect(ok.status, ok.text).toBe(200);
      const foreign = await fresh.request("POST", "/v1/send", {
        key: other,
        body: body("a@mail.owner.test"),
      });
      expect(foreign.status).toBe(422);
      expect(foreign.json.error).toBe("domain_not_verified");
      // Indistinguishable from a domain nobody has: no hint that another account verified it.
      const nobodys = await fresh.request("POST", "/v1/send", { key: other, body: body("a@nobody.test") });
      expect(String(foreign.json.message).replace("mail.owner.test", "D")).toBe(
        String(nobodys.json.message).replace("nobody.test", "D"),
      );
      const unknown = await fresh.request("POST", "/v1/send", { key: owner, body: body("a@owner.test") });
      expect(unknown.json.error).toBe("domain_not_verified");
      const batch = await fresh.request("POST", "/v1/send/batch", {
        key: owner,
        body: [body("a@mail.owner.test"), body("a@elsewhere.test")],
      });
      expect(batch.status).toBe(422);
      expect(batch.json.message).toMatch(/^\[1\]\.from/);
    } finally {
      await fresh.close();
    }
  });
});
