/** An answer and how long it may be reused; 0 (or less) keeps it for no one but the callers already waiting. */
export interface CacheableAnswer<T> {
  value: T;
  ttlSeconds: number;
}

/** Answers kept for their TTL, with concurrent lookups of one key sharing one query. */
export interface DnsCache {
  /**
   * The answer under `key`: the kept one while it is fresh, else `query`'s. While a query for `key` is under
   * way every other caller waits for it rather than sending its own, whether or not its answer is then kept;
   * a rejection reaches those callers and is never kept.
   */
  get<T>(key: string, query: () => Promise<CacheableAnswer<T>>): Promise<T>;
  /** Entries held, fresh or not yet swept. */
  readonly size: number;
}

/**
 * A cache of at most `maxEntries` answers. Past that the oldest written is dropped first, so a worker sending
 * to millions of domains holds a bounded set of them; an expired entry goes when read or when its turn comes.
 */
export function createDnsCache(options: { maxEntries: number }): DnsCache {
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  const inFlight = new Map<string, Promise<unknown>>();

  function keep(key: string, value: unknown, ttlSeconds: number) {
    // Deleting first moves a rewritten key to the young end of the Map's insertion order.
    entries.delete(key);
    while (entries.size >= options.maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done) break;
      entries.delete(oldest.value);
    }
    // A monotonic clock: a wall-clock step must not keep an answer for hours or drop all of them at once.
    entries.set(key, { value, expiresAt: performance.now() + ttlSeconds * 1000 });
  }

  return {
    get<T>(key: string, query: () => Promise<CacheableAnswer<T>>): Promise<T> {
      const entry = entries.get(key);
      if (entry) {
        if (entry.expiresAt > performance.now()) return Promise.resolve(entry.value as T);
        entries.delete(key);
      }
      const waiting = inFlight.get(key);
      if (waiting) return waiting as Promise<T>;
      const answer = query()
        .then(({ value, ttlSeconds }) => {
          if (ttlSeconds > 0 && options.maxEntries > 0) keep(key, value, ttlSeconds);
          return value;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, answer);
      return answer;
    },
    get size() {
      return entries.size;
    },
  };
}
