import { purgeIdempotencyKeys } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { purgeRateLimitCounters } from "@mailroom/core/limits";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { type ApiStack, startApiStack } from "../../test/support/stack.ts";

// A fixed clock keeps every request of a test inside one one-second window.
let clock = new Date("2031-03-01T10:00:00.200Z");
let db: TestDatabase;
let replicaA: ApiStack;
let replicaB: ApiStack;

beforeAll(async () => {
  db = await createTestDatabase();
  const env = { MAILROOM_RATE_LIMIT_PER_KEY: "5", MAILROOM_RATE_LIMIT_PER_ACCOUNT: "8" };
  replicaA = await startApiStack(db, { env, now: () => clock });
  replicaB = await startApiStack(db, { env, now: () => clock });
});
afterAll(async () => {
  await replicaA.close();
  await replicaB.close();
  await db.drop();
});

const list = (api: ApiStack, key: string) => api.request("GET", "/v1/emails?limit=1", { key });

/** `r` (remaining) of the `RateLimit` field, e.g. `"key";r=4;t=1`. */
const remainingOf = (r: { headers: Record<string, unknown> }) =>
  /;r=(\d+)/.exec(String(r.headers.ratelimit))?.[1];

describe("rate limits", () => {
  it("counts a key across replicas and answers 429 with Retry-After past its limit", async () => {
    clock = new Date("2031-03-01T10:00:00.200Z");
    const { fullKey } = await createKey(db.pool, { account: "rl-a", scopes: ["send"], expires: "never" });
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await list(i % 2 === 0 ? replicaA : replicaB, fullKey));
    expect(answers.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map(remainingOf)).toEqual(["4", "3", "2", "1", "0", "0"]);
    // draft-ietf-httpapi-ratelimit-headers-10: both quotas in RateLimit-Policy, the tighter in RateLimit.
    for (const r of answers) {
      expect(r.headers["ratelimit-policy"]).toBe('"key";q=5;w=1, "account";q=8;w=1');
      expect(r.headers.ratelimit).toMatch(/^"key";r=\d;t=1$/);
      for (const old of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
        expect(r.headers[old]).toBeUndefined();
      }
    }
    const limited = answers[5];
    expect(limited?.status).toBe(429);
    expect(limited?.json.error).toBe("rate_limit_exceeded");
    expect(limited?.headers["retry-after"]).toBe("1");

    clock = new Date("2031-03-01T10:00:01.100Z");
    expect((await list(replicaB, fullKey)).status).toBe(200);
  });

  it("applies a key's own limit and the account's limit over all its keys", async () => {
    clock = new Date("2031-03-01T10:00:05.000Z");
    const tight = await createKey(db.pool, {
      account: "rl-b",
      scopes: ["send"],
      expires: "never",
      rateLimitPerSecond: 2,
    });
    expect((await list(replicaA, tight.fullKey)).status).toBe(200);
    expect((await list(replicaA, tight.fullKey)).status).toBe(200);
    expect((await list(replicaA, tight.fullKey)).status).toBe(429);

    clock = new Date("2031-03-01T10:00:06.000Z");
    const keys = await Promise.all(
      [1, 2, 3].map(() => createKey(db.pool, { account: "rl-c", scopes: ["send"], expires: "never" })),
    );
    const statuses = [];
    for (let i = 0; i < 9; i++) statuses.push((await list(replicaB, keys[i % 3]?.fullKey ?? "")).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    expect(statuses[8]).toBe(429);
    // The account's quota is the one that ran out: RateLimit names it.
    expect((await list(replicaA, keys[0]?.fullKey ?? "")).headers.ratelimit).toMatch(/^"account";r=0;t=1$/);
  });

  it("counts concurrent requests exactly when they share an authentication statement", async () => {
    clock = new Date("2031-03-01T10:00:12.000Z");
    const { key, fullKey } = await createKey(db.pool, {
      account: "rl-e",
      scopes: ["send"],
      expires: "never",
    });
    const forged = `mrk_${key.keyId}_${"y".repeat(32)}`;
    // 24 requests at once on two replicas, a third of them forged: they ride together in shared statements.
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        list(i % 2 === 0 ? replicaA : replicaB, i % 3 === 0 ? forged : fullKey),
      ),
    );
    const genuine = answers.filter((_, i) => i % 3 !== 0);
    expect(answers.filter((_, i) => i % 3 === 0).map((r) => r.status)).toEqual(Array(8).fill(401));
    expect(genuine.filter((r) => r.status === 200)).toHaveLength(5);
    expect(genuine.filter((r) => r.status === 429)).toHaveLength(11);
    // Each admitted request holds its own place in the window: remaining 4, 3, 2, 1, 0 once each.
    const remaining = genuine.filter((r) => r.status === 200).map((r) => Number(remainingOf(r)));
    expect(remaining.sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it("does not let an unauthenticated caller spend a key's budget", async () => {
    clock = new Date("2031-03-01T10:00:09.000Z");
    const { key, fullKey } = await createKey(db.pool, {
      account: "rl-d",
      scopes: ["send"],
      expires: "never",
    });
    for (let i = 0; i < 10; i++) {
      const forged = await list(replicaA, `mrk_${key.keyId}_${"x".repeat(32)}`);
      expect(forged.status).toBe(401);
      expect(forged.headers["ratelimit-policy"]).toBeUndefined();
      expect(forged.headers.ratelimit).toBeUndefined();
    }
    expect((await list(replicaA, fullKey)).status).toBe(200);
  });

  it("purges ended windows and expired idempotency keys", async () => {
    const later = new Date(clock.getTime() + 60_000);
    expect(await purgeRateLimitCounters(db.pool, later)).toBeGreaterThan(0);
    const { rows } = await db.pool.query("select count(*)::int as n from rate_limit_counters");
    expect(rows[0]?.n).toBe(0);

    const { fullKey } = await createKey(db.pool, { account: "rl-e", scopes: ["send"], expires: "never" });
    clock = new Date();
    const body = {
      from: "a@acme.test",
      to: "b@example.test",
      subject: "s",
      text: "t",
      idempotencyKey: "k-1",
    };
    const first = await replicaA.request("POST", "/v1/send", { key: fullKey, body });
    expect(first.status).toBe(200);
    expect(await purgeIdempotencyKeys(db.pool, 24, new Date(Date.now() + 23 * 3600_000))).toBe(0);
    expect(await purgeIdempotencyKeys(db.pool, 24, new Date(Date.now() + 25 * 3600_000))).toBe(1);
    const again = await replicaA.request("POST", "/v1/send", { key: fullKey, body });
    expect(again.json.status).toBe("queued");
    expect(again.json.messageId).not.toBe(first.json.messageId);
  });
});
