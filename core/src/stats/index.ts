// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { normalizeStatsQuery, STATS_BUCKETS, STATS_DIMENSIONS } from "./query.ts";
export { purgeEmailStats, readStats } from "./store.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { LATENCY_BOUNDS_MS } from "./latency.ts";
