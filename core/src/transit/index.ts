// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { DEFERRAL_REASONS } from "./rows.ts";
export { clearShapingState, publishShapingState, SHAPING_PUBLISH_SECONDS } from "./shaping-state.ts";
export { normalizeTransitPeriod, readTransit } from "./store.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export type { ShapingStateRow } from "./shaping-state.ts";
