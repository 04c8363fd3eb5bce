/** DKIM rotation (issue 29, ADR 0035): the decider, its store and the run that joins them. */
export { rotationPolicyFor } from "./decide.ts";
export {
  DEFAULT_ROTATION_INTERVAL_DAYS,
  MAX_ROTATION_INTERVAL_DAYS,
  requestRotation,
  setRotationInterval,
} from "./request.ts";
export { rotateDomain, rotateDueDomains } from "./run.ts";
