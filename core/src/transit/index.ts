export { DEFERRAL_REASONS } from "./rows.ts";
export { clearShapingState, publishShapingState, SHAPING_PUBLISH_SECONDS } from "./shaping-state.ts";
export { normalizeTransitPeriod, readTransit } from "./store.ts";
