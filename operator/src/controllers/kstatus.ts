/**
 * The two "abnormal-true" conditions of kstatus (sigs.k8s.io/cli-utils), which Flux's health checks and other
 * GitOps tools read besides Ready: `Reconciling` (work in progress, or a retry after a transient failure; kstatus
 * says InProgress) and `Stalled` (no progress without a person changing something; kstatus says Failed). Ready=False
 * alone reads InProgress too, so without Stalled a conflict or a missing Secret would keep a pipeline waiting
 * until its timeout instead of failing at once with the reason. Both are derived here from Synced and Ready, after the steps ran, so no
 * step owns them and the kind controllers stay unaware of kstatus.
 */
import type { ConditionState } from "./conditions.ts";

/**
 * Reasons that wait for a person: a name another resource or the API holds, a Secret to create or fix, a spec
 * the core refuses, a revoked or expired key, an endpoint Mailroom disabled, a domain whose DNS failed
 * verification (the worker re-checks it, but records a person must publish are missing or wrong).
 */
const STALLED_REASONS: ReadonlySet<string> = new Set([
  "Conflict",
  "SecretConflict",
  "SecretNotFound",
  "DNSEndpointConflict",
  "SelectorImmutable",
  "Invalid",
  "KeyRevoked",
  "KeyExpired",
  "AutoDisabled",
  "VerificationFailed",
]);

export interface KstatusConditions {
  /** null: the condition does not apply and leaves status (kstatus reads an absent one as False). */
  Reconciling: ConditionState | null;
  Stalled: ConditionState | null;
}

/**
 * Reconciling and Stalled for a reconcile that ended with `synced` and `ready`: Synced=False speaks first (the
 * spec is not even applied), then Ready=False; any other reason than the stalled and settled ones is progress.
 */
export function kstatusConditions(synced: ConditionState, ready: ConditionState): KstatusConditions {
  const blocking = synced.status !== "True" ? synced : ready.status !== "True" ? ready : undefined;
  if (!blocking) return { Reconciling: null, Stalled: null };
  const state: ConditionState = { status: "True", reason: blocking.reason, message: blocking.message };
  return STALLED_REASONS.has(blocking.reason)
    ? { Reconciling: null, Stalled: state }
    : { Reconciling: state, Stalled: null };
}
