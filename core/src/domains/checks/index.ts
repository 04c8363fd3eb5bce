/** Each domain's compliance checks as status (issue 29 item 2, ADR 0036). */
export {
  type CheckVerdict,
  type ComplianceCheck,
  evaluateChecks,
} from "./evaluate.ts";
export { probeReverseDns, probeTls, type SendingPath, sendingPathFrom } from "./probes.ts";
export { runChecks } from "./run.ts";
export { recordChecks } from "./store.ts";
