import { describe, expect, it } from "vitest";
import { type CacheableAnswer, createDnsCache } from "./dns-cache.ts";

/** A query that answers its key, counting how often each key was asked. */
function countingQuery(asked: Map<string, number>, key: string, ttlSeconds: number) {
  return async (): Promise<CacheableAnswer<string>> => {
    asked.set(key, (asked.get(key) ?? 0) + 1);
    return { value: `answer for ${key}`, ttlSeconds };
  };
}

describe("dns cache", () => {
  it("holds at most maxEntries answers, dropping the oldest written first", async () => {
    const cache = createDnsCache({ maxEntries: 3 });
    const asked = new Map<string, number>();
    const keys = ["a", "b", "c", "d", "e"];
    for (const key of keys) await cache.get(key, countingQuery(asked, key, 60));
    expect(cache.size).toBe(3);

    for (const key of keys.slice(2)) {
      expect(await cache.get(key, countingQuery(asked, key, 60))).toBe(`answer for ${key}`);
    }
    expect([...asked.values()]).toEqual([1, 1, 1, 1, 1]);
    // "a" and "b" were dropped: asking again queries, and pushes out the then-oldest entries.
    await cache.get("a", countingQuery(asked, "a", 60));
    expect(asked.get("a")).toBe(2);
    expect(cache.size).toBe(3);
  });

  it("keeps no answer whose TTL is 0, yet shares a query among concurrent callers", async () => {
    const cache = createDnsCache({ maxEntries: 10 });
    const asked = new Map<string, number>();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => cache.get("k", countingQuery(asked, "k", 0))),
    );
    expect(answers).toEqual(Array(5).fill("answer for k"));
    expect(asked.get("k")).toBe(1);
    await cache.get("k", countingQuery(asked, "k", 0));
    expect(asked.get("k")).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("hands a failed query to every caller waiting on it and keeps nothing of it", async () => {
    const cache = createDnsCache({ maxEntries: 10 });
    let calls = 0;
    const failing = async (): Promise<CacheableAnswer<string>> => {
      calls += 1;
      throw Object.assign(new Error("queryA ESERVFAIL k"), { code: "ESERVFAIL" });
    };
    const outcomes = await Promise.allSettled([cache.get("k", failing), cache.get("k", failing)]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(calls).toBe(1);
    const asked = new Map<string, number>();
    expect(await cache.get("k", countingQuery(asked, "k", 60))).toBe("answer for k");
    expect(asked.get("k")).toBe(1);
  });
});
