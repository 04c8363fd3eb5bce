import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_POLICY,
  DEFAULT_RETRY_SCHEDULE_MS,
  parseRetryAfter,
  planAfterFailure,
} from "./schedule.ts";

const now = new Date("2030-01-01T00:00:00Z");
const plus = (ms: number) => new Date(now.getTime() + ms);

describe("webhook retry schedule", () => {
  it("is 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS.map((ms) => ms / 1000)).toEqual([
      0, 5, 300, 1800, 7200, 18_000, 36_000, 36_000,
    ]);
  });

  it("walks the schedule step by step, then gives up after the last attempt", () => {
    const plans = DEFAULT_RETRY_SCHEDULE_MS.map((_, step) =>
      planAfterFailure({ step, statusCode: 500, failingSince: now, now }, DEFAULT_RETRY_POLICY),
    );
    expect(plans.slice(0, -1)).toEqual(
      DEFAULT_RETRY_SCHEDULE_MS.slice(1).map((ms, i) => ({ kind: "retry", at: plus(ms), step: i + 1 })),
    );
    expect(plans.at(-1)).toEqual({ kind: "give_up" });
  });

  it("honours Retry-After on 429 when it asks for longer, within a cap", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: 3_600_000 };
    const plan = (statusCode: number, retryAfterMs: number) =>
      planAfterFailure({ step: 0, statusCode, retryAfterMs, failingSince: now, now }, policy);
    expect(plan(429, 120_000)).toEqual({ kind: "retry", at: plus(120_000), step: 1 });
    expect(plan(429, 1_000)).toEqual({ kind: "retry", at: plus(5_000), step: 1 });
    expect(plan(429, 10 * 3_600_000)).toEqual({ kind: "retry", at: plus(3_600_000), step: 1 });
    // Only a 429 is a request to slow down; a 503's Retry-After does not stretch the schedule.
    expect(plan(503, 120_000)).toEqual({ kind: "retry", at: plus(5_000), step: 1 });
  });

  it("disables the endpoint on 410 and after five days of failure", () => {
    expect(
      planAfterFailure({ step: 0, statusCode: 410, failingSince: now, now }, DEFAULT_RETRY_POLICY),
    ).toEqual({
      kind: "disable_endpoint",
      reason: "the receiver answered 410 Gone",
    });
    const almost = new Date(now.getTime() - 5 * 86_400_000 + 1);
    expect(planAfterFailure({ step: 2, failingSince: almost, now }, DEFAULT_RETRY_POLICY).kind).toBe("retry");
    const five = new Date(now.getTime() - 5 * 86_400_000);
    expect(planAfterFailure({ step: 2, failingSince: five, now }, DEFAULT_RETRY_POLICY)).toEqual({
      kind: "disable_endpoint",
      reason: "every delivery failed for 5 days",
    });
  });

  it("parses Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(plus(90_000).toUTCString(), now)).toBe(90_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
