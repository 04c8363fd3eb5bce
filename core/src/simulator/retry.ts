import type { RecipientOutcome, RetryPolicy } from "../emails/delivery.ts";
import { isSimulatorAddress } from "./addresses.ts";

/**
 * The retry policy of an attempt: the real one, unless every recipient left pending is a simulator address
 * (soft-bounced@), whose retry comes after `retrySeconds` so its whole story fits in the simulator's 2 s
 * (ADR 0049). One real pending recipient keeps the real policy: the simulator never speeds up real mail.
 */
export function simulatorRetryPolicy(
  policy: RetryPolicy,
  outcomes: readonly RecipientOutcome[],
  simulator: { domain: string | undefined; retrySeconds: number },
): RetryPolicy {
  const pending = outcomes.filter((o) => o.status === "temporary");
  if (pending.length === 0 || !pending.every((o) => isSimulatorAddress(o.recipient, simulator.domain)))
    return policy;
  return { ...policy, baseDelaySeconds: simulator.retrySeconds, maxDelaySeconds: simulator.retrySeconds };
}
