/** DKIM rotation (issue 29, ADR 0035): the decider, its store and the run that joins them. */
export {
  type DkimKeyState,
  decideRotation,
  type RotationDecision,
  type RotationInput,
  type RotationKey,
  type RotationPhase,
  type RotationPolicy,
  type RotationStep,
  rotationPolicyFor,
} from "./decide.ts";
export {
  DEFAULT_ROTATION_INTERVAL_DAYS,
  MAX_ROTATION_INTERVAL_DAYS,
  type RotationRequestResult,
  requestRotation,
  setRotationInterval,
} from "./request.ts";
export { type RotationDeps, type RotationOutcome, rotateDomain, rotateDueDomains } from "./run.ts";
export { type AppliedStep, loadRotationState, type RotationState } from "./store.ts";
