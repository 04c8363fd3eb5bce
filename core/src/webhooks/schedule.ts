const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before each attempt, measured from the previous one (issue 5 item 8). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export interface RetryPolicy {
  /** Delay before attempt n+1 (index 0 is the first attempt). Tests pass milliseconds. */
  scheduleMs: readonly number[];
  /** An endpoint failing continuously for this long is disabled (default five days). */
  disableAfterMs: number;
  /** Upper bound on a receiver's Retry-After, so a hostile value cannot park a delivery for years. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  scheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
  disableAfterMs: 5 * 24 * HOUR,
  maxRetryAfterMs: 24 * HOUR,
});

/** Milliseconds a `Retry-After` header asks for (delta-seconds or an HTTP date); undefined if unusable. */
export function parseRetryAfter(header: string | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

function describeSpan(ms: number): string {
  if (ms >= 24 * HOUR) return `${Math.round((ms / (24 * HOUR)) * 10) / 10} days`;
  if (ms >= HOUR) return `${Math.round((ms / HOUR) * 10) / 10} hours`;
  return `${ms} ms`;
}

export interface FailedAttempt {
  /** Schedule step of the attempt that just failed (0 for the first). */
  step: number;
  statusCode?: number | undefined;
  retryAfterMs?: number | undefined;
  /** Start of the endpoint's current run of failures, this one included. */
  failingSince: Date;
  now: Date;
}

export type FailurePlan =
  | { kind: "retry"; at: Date; step: number }
  | { kind: "give_up" }
  | { kind: "disable_endpoint"; reason: string };

/**
 * What follows a failed attempt: a 410 or a long enough run of failures disables the endpoint; otherwise the
 * next step of the schedule (later if a 429 asked for more time), or giving up after the last step.
 */
export function planAfterFailure(attempt: FailedAttempt, policy: RetryPolicy): FailurePlan {
  if (attempt.statusCode === 410) {
    return { kind: "disable_endpoint", reason: "the receiver answered 410 Gone" };
  }
  if (attempt.now.getTime() - attempt.failingSince.getTime() >= policy.disableAfterMs) {
    return {
      kind: "disable_endpoint",
      reason: `every delivery failed for ${describeSpan(policy.disableAfterMs)}`,
    };
  }
  const step = attempt.step + 1;
  const delay = policy.scheduleMs[step];
  if (delay === undefined) return { kind: "give_up" };
  const asked = attempt.statusCode === 429 ? (attempt.retryAfterMs ?? 0) : 0;
  const wait = Math.max(delay, Math.min(asked, policy.maxRetryAfterMs));
  return { kind: "retry", at: new Date(attempt.now.getTime() + wait), step };
}
