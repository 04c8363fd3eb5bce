/** metav1.Condition handling shared by every kind: Ready and Synced, each with observedGeneration. */
import { toRfc3339 } from "./rfc3339.ts";

export type ConditionStatus = "True" | "False" | "Unknown";

export interface Condition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** A condition before it is stamped with a generation and a transition time. */
export interface ConditionState {
  status: ConditionStatus;
  reason: string;
  message: string;
}

export const ok = (reason: string, message = ""): ConditionState => ({ status: "True", reason, message });
export const notOk = (reason: string, message: string): ConditionState => ({
  status: "False",
  reason,
  message,
});

/**
 * Sets a condition, keeping its lastTransitionTime unless its status changed: `kubectl wait` and humans read
 * that time as "since when", so a reconcile that finds nothing new must not move it.
 */
export function setCondition(
  existing: readonly Condition[] | undefined,
  type: string,
  state: ConditionState,
  generation: number,
  now: Date,
): Condition[] {
  const previous = existing?.find((c) => c.type === type);
  const next: Condition = {
    type,
    status: state.status,
    observedGeneration: generation,
    lastTransitionTime:
      previous && previous.status === state.status ? previous.lastTransitionTime : toRfc3339(now),
    reason: state.reason,
    // The schema bounds messages; an upstream error could be longer.
    message: state.message.slice(0, 4096),
  };
  return [...(existing ?? []).filter((c) => c.type !== type), next].sort((a, b) =>
    a.type.localeCompare(b.type),
  );
}

/** Reads one condition from a status. */
export function conditionOf(
  status: { conditions?: readonly Condition[] | undefined } | undefined,
  type: string,
): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}
