import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { authenticateKey, createKeyChecker } from "./authenticate.ts";
import { revokeKey } from "./revoke.ts";
import { createKey, listKeys, touchKeyLastUsed } from "./store.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** The key with its last secret character changed: a wrong secret for a real key id. */
const tamper = (key: string) => `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof MailroomError) return error.code;
    throw error;
  }
}

describe("keys on Postgres", () => {
  it("stores only a hash and authenticates the full key", async () => {
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "never",
    });
    const { rows } = await db.pool.query("select * from api_keys where key_id = $1", [key.keyId]);
    expect(JSON.stringify(rows)).not.toContain(fullKey.split("_")[2]);
    const authed = await authenticateKey(db.pool, `Bearer ${fullKey}`);
    expect(authed.keyId).toBe(key.keyId);
    expect(authed.scopes).toEqual(["send"]);
  });

  it("answers the spec's codes: missing, invalid, revoked, expired", async () => {
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "30d",
    });
    expect(await codeOf(authenticateKey(db.pool, undefined))).toBe("missing_api_key");
    expect(await codeOf(authenticateKey(db.pool, "Basic abc"))).toBe("missing_api_key");
    expect(await codeOf(authenticateKey(db.pool, "Bearer "))).toBe("missing_api_key");
    expect(await codeOf(authenticateKey(db.pool, "Bearer abc"))).toBe("invalid_api_key");
    expect(await codeOf(authenticateKey(db.pool, `Bearer ${tamper(fullKey)}`))).toBe("invalid_api_key");
    const later = new Date(Date.now() + 31 * 24 * 3600 * 1000);
    expect(await codeOf(authenticateKey(db.pool, `Bearer ${fullKey}`, later))).toBe("api_key_expired");
    // Past expiry but with a wrong secret: the state is not revealed.
    expect(await codeOf(authenticateKey(db.pool, `Bearer ${tamper(fullKey)}`, later))).toBe(
      "invalid_api_key",
    );
    await revokeKey(db.pool, key.keyId);
    expect(await codeOf(authenticateKey(db.pool, `Bearer ${fullKey}`))).toBe("api_key_revoked");
    expect(await codeOf(authenticateKey(db.pool, `Bearer ${tamper(fullKey)}`))).toBe("invalid_api_key");
  });

  it("refreshes last_used_at at most about once an hour", async () => {
    const { key } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const t0 = new Date("2030-01-01T00:00:00Z");
    expect(await touchKeyLastUsed(db.pool, key, t0)).toBe(true);
    // A stale in-memory record (another replica) must not write again within the hour.
    expect(await touchKeyLastUsed(db.pool, key, new Date(t0.getTime() + 30 * 60_000))).toBe(false);
    const [fresh] = await listKeys(db.pool, { account: "default" }).then((ks) =>
      ks.filter((k) => k.keyId === key.keyId),
    );
    expect(fresh?.lastUsedAt?.toISOString()).toBe(t0.toISOString());
    expect(await touchKeyLastUsed(db.pool, fresh ?? key, new Date(t0.getTime() + 30 * 60_000))).toBe(false);
    expect(await touchKeyLastUsed(db.pool, fresh ?? key, new Date(t0.getTime() + 61 * 60_000))).toBe(true);
  });

  it("tells every later use of a key Mailroom revoked itself why, keeping the first reason", async () => {
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "never",
    });
    const messageOf = (authorization: string) =>
      authenticateKey(db.pool, authorization).then(
        () => "ok",
        (error: MailroomError) => `${error.code}: ${error.message}`,
      );
    await revokeKey(db.pool, key.keyId, undefined, undefined, "the session was idle too long");
    // Another request (another tab) after the one that revoked it is told why, too.
    expect(await messageOf(`Bearer ${fullKey}`)).toBe(
      "api_key_revoked: This API key has been revoked: the session was idle too long.",
    );
    await revokeKey(db.pool, key.keyId, undefined, undefined, "a second reason");
    expect(await messageOf(`Bearer ${fullKey}`)).toContain("idle too long");
    // A revocation by a person or the operator gives no reason.
    const other = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    await revokeKey(db.pool, other.key.keyId);
    expect(await messageOf(`Bearer ${other.fullKey}`)).toBe(
      "api_key_revoked: This API key has been revoked.",
    );
  });

  it("returns undefined when revoking an unknown key id", async () => {
    expect(await revokeKey(db.pool, "AAAAAAAAAAAA")).toBeUndefined();
  });

  it("a key checker shares one statement among concurrent checks, each decided on its own", async () => {
    const live = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const revoked = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    await revokeKey(db.pool, revoked.key.keyId);
    let statements = 0;
    const counting: Queryable = {
      query: ((...args: unknown[]) => {
        statements++;
        return (db.pool.query as (...a: unknown[]) => unknown)(...args);
      }) as Queryable["query"],
    };
    const check = createKeyChecker(counting);
    const presented = [
      ...Array.from({ length: 30 }, () => live.fullKey),
      revoked.fullKey,
      tamper(live.fullKey),
      `${live.fullKey.split("_")[0]}_ZZZZZZZZZZZZ_${live.fullKey.split("_")[2]}`,
      "not a key",
    ];
    const codes = await Promise.all(presented.map((key) => codeOf(check(`Bearer ${key}`))));
    expect(codes).toEqual([
      ...Array.from({ length: 30 }, () => "ok"),
      "api_key_revoked",
      "invalid_api_key",
      "invalid_api_key",
      "invalid_api_key",
    ]);
    // The first check runs alone at once; the 32 that came while it was in flight ride in the next.
    expect(statements).toBe(2);
    const { key, account } = await check(`Bearer ${live.fullKey}`);
    expect(key.keyId).toBe(live.key.keyId);
    expect(account.account).toBe("default");
    // Read from Postgres at every check: a revoke is seen by the next one.
    await revokeKey(db.pool, live.key.keyId);
    expect(await codeOf(check(`Bearer ${live.fullKey}`))).toBe("api_key_revoked");
  });
});
