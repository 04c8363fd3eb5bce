export { checkChaosRules, decideChaos } from "./chaos.ts";
export { loadChaosRules, replaceChaosRules } from "./chaos-store.ts";
export { capturesMail } from "./decide.ts";
export { captureMessage } from "./store.ts";
