export interface AuthThrottleOptions {
  /** Failures from one address that are answered at once; later ones wait. */
  freeFailures: number;
  /** The wait after the first failure beyond the free ones; it doubles with each further failure. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Failures after which the address is refused (421, connection closed) until its failures age out. */
  blockAfter: number;
  /** How long a failure is remembered. */
  windowMs: number;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleOptions = {
  freeFailures: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 10_000,
  blockAfter: 20,
  windowMs: 15 * 60_000,
};

/**
 * Slows down password guessing per peer address: a few failed AUTHs are answered at once, then each answer
 * waits longer (doubling up to a ceiling), and past a limit the address is refused outright until its
 * failures age out. Kept in memory per process: a guesser spread over replicas is still slowed on each, and
 * an API key's ~190-bit secret cannot be guessed anyway; this keeps logs and CPU quiet.
 */
export function createAuthThrottle(options: AuthThrottleOptions, now: () => number = Date.now) {
  const failures = new Map<string, number[]>();
  const recent = (peer: string) => {
    const since = now() - options.windowMs;
    const kept = (failures.get(peer) ?? []).filter((at) => at > since);
    if (kept.length > 0) failures.set(peer, kept);
    else failures.delete(peer);
    return kept;
  };
  return {
    /** Whether the address is refused outright. */
    blocked: (peer: string) => recent(peer).length >= options.blockAfter,
    /** How long the answer to the address's next failed AUTH waits. */
    delayMs(peer: string): number {
      const beyond = recent(peer).length - options.freeFailures;
      return beyond < 0 ? 0 : Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** beyond);
    },
    fail(peer: string): void {
      // Bounded: a flood from many addresses cannot grow the map without limit.
      if (failures.size > 10_000) failures.clear();
      failures.set(peer, [...recent(peer), now()]);
    },
  };
}

export type AuthThrottle = ReturnType<typeof createAuthThrottle>;
