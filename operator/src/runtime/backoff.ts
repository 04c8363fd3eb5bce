/** Exponential backoff with jitter, and a sleep that an AbortSignal cuts short. */
import { setTimeout as delay } from "node:timers/promises";

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

/**
 * The delay before attempt `failures` (1 = first retry): base·2^(n-1), capped, then jittered down by up to
 * a fifth so replicas or objects failing together do not retry in lockstep.
 */
export function backoffDelay(policy: BackoffPolicy, failures: number, random: () => number = Math.random) {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(exponential * (1 - random() * 0.2));
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  try {
    await delay(ms, undefined, { signal });
  } catch {
    // Aborted: the caller checks its own stop flag.
  }
}
