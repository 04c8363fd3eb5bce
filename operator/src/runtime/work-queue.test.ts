import { describe, expect, it } from "vitest";
import { createWorkQueue } from "./work-queue.ts";

const log = { info: () => {}, warn: () => {}, error: () => {} };

describe("work queue", () => {
  it("dedups a key, runs one handler per key at a time, and reruns a key added while it ran", async () => {
    const calls: string[] = [];
    let inFlight = 0;
    let maxInFlightForA = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const queue = createWorkQueue({
      name: "Test",
      log,
      concurrency: 4,
      async handle(key) {
        calls.push(key);
        if (key === "a") {
          inFlight += 1;
          maxInFlightForA = Math.max(maxInFlightForA, inFlight);
          await gate;
          inFlight -= 1;
        }
        return undefined;
      },
    });
    queue.add("a");
    queue.add("a");
    queue.add("b");
    await new Promise((r) => setTimeout(r, 10));
    queue.add("a");
    queue.add("a");
    release();
    await queue.idle();
    await queue.idle();
    expect(calls.filter((c) => c === "a")).toHaveLength(2);
    expect(calls.filter((c) => c === "b")).toHaveLength(1);
    expect(maxInFlightForA).toBe(1);
    await queue.shutdown();
  });

  it("retries a failing key with backoff and honours an explicit requeue", async () => {
    const seen: number[] = [];
    let failures = 2;
    const queue = createWorkQueue({
      name: "Test",
      log,
      retry: { baseMs: 20, maxMs: 100 },
      async handle() {
        seen.push(Date.now());
        if (failures-- > 0) throw new Error("transient");
        return seen.length === 3 ? { requeueAfterMs: 30 } : undefined;
      },
    });
    queue.add("k");
    await expect.poll(() => seen.length, { timeout: 2_000 }).toBe(4);
    const gaps = seen.slice(1).map((t, i) => t - (seen[i] ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[1]).toBeGreaterThanOrEqual(30);
    expect(gaps[2]).toBeGreaterThanOrEqual(25);
    await queue.shutdown();
  });
});
