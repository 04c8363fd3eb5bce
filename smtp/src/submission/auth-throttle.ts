export interface AuthThrottleOptions {
  /** Failures from one address (or of one key id from it) that cost no wait; later attempts wait their turn. */
  freeFailures: number;
  /** The spacing of attempts after the first failure beyond the free ones; it doubles with each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * Longest wait in line: an attempt that would wait longer is answered 421 at once, with no database work.
   * A key proven from the address does not queue behind the address's failures, so it never meets this.
   */
  maxWaitMs: number;
  /** How long a failure (and a proven key) is remembered. */
  windowMs: number;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleOptions = {
  freeFailures: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 10_000,
  maxWaitMs: 60_000,
  windowMs: 15 * 60_000,
};

interface Bucket {
  failures: number[];
  /** When the next attempt of this bucket may be checked. */
  nextTurn: number;
}

/** Whether an AUTH attempt may be checked now, after a wait, or not at all (421). */
export type Turn = { waitMs: number } | { refused: true };

/**
 * Slows down password guessing without locking anyone out. Attempts are counted in two buckets: the peer
 * address, and the pair (address, key id presented). Past a bucket's free failures its attempts are checked
 * one at a time, each turn spaced by a delay that doubles per further failure: parallel connections queue
 * behind each other instead of each waiting the same short delay, so they gain nothing. A key whose secret
 * was proven from the address in the window skips the address's queue (only its own pair's applies), so a
 * guesser sharing a NAT address with an app slows the app's key down at most by the guesses at that very
 * key id, and never blocks it; there is no lockout. Kept in memory per process: a guesser spread over
 * replicas is still slowed on each, and an API key's ~190-bit secret cannot be guessed anyway; this keeps
 * logs, CPU and the database quiet.
 */
export function createAuthThrottle(options: AuthThrottleOptions, now: () => number = Date.now) {
  const buckets = new Map<string, Bucket>();
  const proven = new Map<string, number>();
  const bucket = (name: string): Bucket => {
    const since = now() - options.windowMs;
    let found = buckets.get(name);
    if (!found) {
      // Bounded: a flood from many addresses cannot grow the maps without limit.
      if (buckets.size > 20_000) buckets.clear();
      found = { failures: [], nextTurn: 0 };
      buckets.set(name, found);
    }
    found.failures = found.failures.filter((at) => at > since);
    return found;
  };
  const spacing = (b: Bucket) => {
    const beyond = b.failures.length - options.freeFailures;
    return beyond < 0 ? 0 : Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** beyond);
  };
  const pair = (peer: string, keyId: string) => `${peer}\n${keyId}`;
  const isProven = (peer: string, keyId: string) => {
    const at = proven.get(pair(peer, keyId));
    return at !== undefined && at > now() - options.windowMs;
  };
  return {
    /**
     * Takes the attempt's place in line: its wait, or a refusal when the line is longer than `maxWaitMs`.
     * `keyId` is the key id the password names ('' for a password that is no key).
     */
    turn(peer: string, keyId: string): Turn {
      const at = now();
      const lines = [bucket(pair(peer, keyId))];
      if (!isProven(peer, keyId)) lines.push(bucket(peer));
      const start = Math.max(at, ...lines.map((b) => b.nextTurn));
      if (start - at > options.maxWaitMs) return { refused: true };
      for (const b of lines) b.nextTurn = start + spacing(b);
      return { waitMs: start - at };
    },
    /**
     * Counts a failed login. Answers the address's failures in the window when this one is the first beyond
     * the free ones (the moment the throttle starts slowing it down, which the audit trail records once, not
     * per guess), else 0.
     */
    fail(peer: string, keyId: string): number {
      const address = bucket(peer);
      for (const b of [address, bucket(pair(peer, keyId))]) {
        b.failures.push(now());
        // The failure lengthens the spacing of the turn just taken too.
        b.nextTurn = Math.max(b.nextTurn, now() + spacing(b));
      }
      return address.failures.length === options.freeFailures + 1 ? address.failures.length : 0;
    },
    succeed(peer: string, keyId: string): void {
      if (proven.size > 20_000) proven.clear();
      proven.set(pair(peer, keyId), now());
    },
  };
}

export type AuthThrottle = ReturnType<typeof createAuthThrottle>;
