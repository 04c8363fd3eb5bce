/**
 * The accept→delivered latency histogram's bucket bounds (milliseconds), as
 * `mailroom_stats_latency_bounds()` (core/sql/functions/mailroom_count_email_stats.sql) holds them; a test
 * compares the two. Bucket i counts latencies below LATENCY_BOUNDS_MS[i] and at or above the bound before
 * it; the last bucket counts the rest.
 */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 15000, 20000, 30000, 45000, 60000,
  90000, 120000, 180000, 300000, 600000, 900000, 1800000, 3600000, 7200000, 14400000, 43200000, 86400000,
];

/** Two histograms added element-wise; a missing element counts 0. */
export function addHistograms(a: readonly number[], b: readonly number[]): number[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => (a[i] ?? 0) + (b[i] ?? 0));
}

/**
 * The latency below which a fraction `q` (0 < q ≤ 1) of the histogram's deliveries fall, interpolated
 * linearly inside the bucket the rank lands in (so its error is at most that bucket's width). The open last
 * bucket answers its lower bound. Null when nothing was delivered.
 */
export function latencyQuantile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (const [i, count] of histogram.entries()) {
    if (count > 0 && below + count >= rank) {
      const lower = i === 0 ? 0 : (LATENCY_BOUNDS_MS[i - 1] ?? 0);
      const upper = LATENCY_BOUNDS_MS[i];
      if (upper === undefined) return lower;
      return Math.round(lower + ((rank - below) / count) * (upper - lower));
    }
    below += count;
  }
  return LATENCY_BOUNDS_MS.at(-1) ?? null;
}
