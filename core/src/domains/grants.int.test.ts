import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, markDomainVerified, type TestDatabase } from "../../../test/support/db.ts";
import { createKey } from "../keys/store.ts";
import { bounceDomainServes } from "./bounce-domains.ts";
import { generateKek } from "./crypto.ts";
import { CLUSTER_ACCOUNT, judgeSenderDomain, setDomainGrants } from "./grants.ts";
import { createDomain, findVerifiedDomain } from "./store.ts";

let db: TestDatabase;
const kek = generateKek();

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe("shared domains (ADR 0054)", () => {
  it("grants exactly the set given, reporting what changed, and only to namespace-shaped accounts", async () => {
    const shared = await createDomain(db.pool, kek, { account: CLUSTER_ACCOUNT, name: "set.shared.test" });
    expect(await setDomainGrants(db.pool, shared.id, ["b", "a", "a"])).toEqual({
      added: ["a", "b"],
      removed: [],
    });
    expect(await setDomainGrants(db.pool, shared.id, ["b", "c"])).toEqual({ added: ["c"], removed: ["a"] });
    expect(await setDomainGrants(db.pool, shared.id, ["b", "c"])).toEqual({ added: [], removed: [] });
    expect(await setDomainGrants(db.pool, shared.id, [])).toEqual({ added: [], removed: ["b", "c"] });
    await expect(setDomainGrants(db.pool, shared.id, [CLUSTER_ACCOUNT])).rejects.toThrow(/check constraint/);
  });

  it("no API key can belong to the owner account", async () => {
    await expect(
      createKey(db.pool, { account: CLUSTER_ACCOUNT, scopes: ["send"], expires: "never" }),
    ).rejects.toThrow();
  });

  it("judges a sender: granted, not granted, not verified, and another account's own domain unrevealed", async () => {
    const shared = await createDomain(db.pool, kek, { account: CLUSTER_ACCOUNT, name: "judge.shared.test" });
    await setDomainGrants(db.pool, shared.id, ["allowed"]);
    // Not verified yet: even the allowed namespace cannot send, and others are told it is not theirs.
    expect(await judgeSenderDomain(db.pool, "allowed", "a@judge.shared.test")).toBe("not_verified");
    expect(await judgeSenderDomain(db.pool, "other", "a@judge.shared.test")).toBe("not_allowed");
    await markDomainVerified(db.pool, shared.id);
    expect(await judgeSenderDomain(db.pool, "allowed", "A <a@JUDGE.shared.test>")).toBe("allowed");
    expect(await judgeSenderDomain(db.pool, "other", "a@judge.shared.test")).toBe("not_allowed");
    expect((await findVerifiedDomain(db.pool, "allowed", "a@judge.shared.test"))?.id).toBe(shared.id);
    expect(await findVerifiedDomain(db.pool, "other", "a@judge.shared.test")).toBeUndefined();
    expect(await bounceDomainServes(db.pool, shared.returnPathDomain, "allowed")).toBe(true);
    expect(await bounceDomainServes(db.pool, shared.returnPathDomain, "other")).toBe(false);

    // A namespace's own pending domain of the shared name does not make it allowed.
    await createDomain(db.pool, kek, { account: "other", name: "judge.shared.test" });
    expect(await judgeSenderDomain(db.pool, "other", "a@judge.shared.test")).toBe("not_allowed");

    // Another account's own verified domain stays indistinguishable from nobody's.
    const owned = await createDomain(db.pool, kek, { account: "owner", name: "own.example.test" });
    await markDomainVerified(db.pool, owned.id);
    expect(await judgeSenderDomain(db.pool, "owner", "a@own.example.test")).toBe("allowed");
    expect(await judgeSenderDomain(db.pool, "other", "a@own.example.test")).toBe("not_verified");
    expect(await judgeSenderDomain(db.pool, "other", "a@nobody.example.test")).toBe("not_verified");
  });

  it("takes the grants away with the domain", async () => {
    const shared = await createDomain(db.pool, kek, { account: CLUSTER_ACCOUNT, name: "gone.shared.test" });
    await setDomainGrants(db.pool, shared.id, ["x"]);
    await db.pool.query("delete from domains where id = $1", [shared.id]);
    const { rows } = await db.pool.query("select 1 from domain_grants where domain_id = $1", [shared.id]);
    expect(rows).toEqual([]);
  });
});
