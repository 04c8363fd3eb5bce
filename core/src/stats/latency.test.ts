import { describe, expect, it } from "vitest";
import { addHistograms, LATENCY_BOUNDS_MS, latencyQuantile } from "./latency.ts";

const histogram = (counts: Record<number, number>) =>
  Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, (_, i) => counts[i] ?? 0);

describe("latency quantiles from the histogram", () => {
  it("answers null for no deliveries and interpolates inside the bucket the rank lands in", () => {
    expect(latencyQuantile([], 0.5)).toBeNull();
    expect(latencyQuantile(histogram({}), 0.99)).toBeNull();
    // 100 deliveries in [1000, 1500): the median is half-way, the 99th nearly at the top.
    expect(latencyQuantile(histogram({ 7: 100 }), 0.5)).toBe(1250);
    expect(latencyQuantile(histogram({ 7: 100 }), 0.99)).toBe(1495);
    // 98 fast ones and 2 in [60 s, 90 s): p50 stays fast, p99 lands in the slow bucket.
    const mixed = histogram({ 2: 98, 18: 2 });
    expect(latencyQuantile(mixed, 0.5)).toBeGreaterThanOrEqual(100);
    expect(latencyQuantile(mixed, 0.5)).toBeLessThan(200);
    expect(latencyQuantile(mixed, 0.99)).toBe(75000);
  });

  it("answers the open last bucket's lower bound", () => {
    expect(latencyQuantile(histogram({ [LATENCY_BOUNDS_MS.length]: 3 }), 0.5)).toBe(86400000);
  });

  it("adds histograms of different lengths element-wise", () => {
    expect(addHistograms([1, 2], [3, 4, 5])).toEqual([4, 6, 5]);
    expect(addHistograms([], [])).toEqual([]);
  });
});
