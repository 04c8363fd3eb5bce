import { describe, expect, it } from "vitest";
import { DestinationPace } from "./state.ts";

const backoff = { firstMs: 30_000, maxMs: 100_000 };
const pace = (concurrency: number, ratePerMinute = 0) =>
  new DestinationPace({ concurrency, messagesPerConnection: 100, ratePerMinute }, backoff);

describe("a destination's pace", () => {
  it("holds transactions in flight to its concurrency", () => {
    const p = pace(2);
    expect(p.tryStart(0, 0)).toEqual({ kind: "start", delayMs: 0 });
    expect(p.tryStart(0, 0)).toEqual({ kind: "start", delayMs: 0 });
    expect(p.tryStart(0, 10_000)).toEqual({ kind: "full" });
    p.finish(5, 0, "accepted");
    expect(p.tryStart(5, 0)).toEqual({ kind: "start", delayMs: 0 });
  });

  it("spaces starts by its rate, and refuses a start further off than the longest wait", () => {
    const p = pace(10, 60);
    expect(p.tryStart(0, 0)).toEqual({ kind: "start", delayMs: 0 });
    expect(p.tryStart(0, 5_000)).toEqual({ kind: "start", delayMs: 1_000 });
    expect(p.tryStart(0, 1_500)).toEqual({ kind: "too_soon", delayMs: 2_000 });
    expect(p.tryStart(2_500, 0)).toEqual({ kind: "start", delayMs: 0 });
  });

  it("on a rate-limit reply halves its limits and pauses, once per burst", () => {
    const p = pace(8, 120);
    p.tryStart(0, 0);
    p.tryStart(0, 1_000);
    expect(p.finish(1_000, 0, "rate_limited", "421 4.7.28 slow down")).toBe(30_000);
    expect(p.level).toBe(0.5);
    expect(p.concurrency()).toBe(4);
    expect(p.intervalMs()).toBe(1_000);
    expect(p.tryStart(20_000, 60_000)).toEqual({ kind: "paused", untilMs: 31_000 });
    expect(p.lastReply).toBe("421 4.7.28 slow down");
    // The other transaction of the same burst, started before the backoff: no second halving.
    expect(p.finish(2_000, 500, "rate_limited")).toBeUndefined();
    expect(p.level).toBe(0.5);
    expect(p.tryStart(31_000, 0)).toEqual({ kind: "start", delayMs: 0 });
  });

  it("doubles the pause for each backoff in a row, up to the maximum, never below one session", () => {
    const p = pace(2);
    const pauses: Array<number | undefined> = [];
    let now = 0;
    for (let i = 0; i < 4; i += 1) {
      const started = now;
      p.tryStart(now, 0);
      now += 1;
      pauses.push(p.finish(now, started, "rate_limited"));
      now = p.pausedUntilMs;
    }
    expect(pauses).toEqual([30_000, 60_000, 100_000, 100_000]);
    expect(p.concurrency()).toBe(1);
    expect(p.level).toBe(1 / 16);
  });

  it("recovers gradually on accepted transactions after the pause, then starts the pauses over", () => {
    const p = pace(4);
    p.tryStart(0, 0);
    p.tryStart(0, 0);
    p.finish(1, 0, "rate_limited");
    // Accepted while still paused (a transaction already under way) gives nothing back.
    p.finish(2, 0, "accepted");
    expect(p.level).toBe(0.5);
    let now = p.pausedUntilMs;
    let steps = 0;
    while (p.level < 1) {
      expect(p.tryStart(now, 0).kind).toBe("start");
      p.finish(now, now, "accepted");
      now += 1;
      steps += 1;
    }
    expect(steps).toBe(10);
    expect(p.concurrency()).toBe(4);
    expect(p.isIdle(now)).toBe(true);
    p.tryStart(now, 0);
    expect(p.finish(now + 1, now, "rate_limited")).toBe(30_000);
  });

  it("leaves its pace alone for other temporary failures", () => {
    const p = pace(4);
    p.tryStart(0, 0);
    expect(p.finish(1, 0, "other")).toBeUndefined();
    expect(p.level).toBe(1);
  });
});
