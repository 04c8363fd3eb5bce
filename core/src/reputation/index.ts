export { runReputationGuard } from "./guard.ts";
export { purgeReputationCounters } from "./store.ts";
