import type { Queryable } from "../db/pool.ts";

export interface RateLimitPolicy {
  /** Requests per second for one key (0: unlimited), unless the key carries its own limit. */
  perKey: number;
  /** Requests per second for all keys of one account together (0: unlimited). */
  perAccount: number;
}

/** A quota a request counts against: `key` (its API key) or `account` (all keys of its account). */
export interface RateLimitQuota {
  policy: "key" | "account";
  /** Requests per one-second window. */
  limit: number;
}

export interface RateLimitVerdict {
  allowed: boolean;
  /** Every quota the request counted against, for the `RateLimit-Policy` header. */
  quotas: RateLimitQuota[];
  /** The quota that is closest to running out, for the `RateLimit` header. */
  policy: RateLimitQuota["policy"];
  /** Its limit. */
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/** The buckets a request counts against, with their limits (a limit of 0 is no bucket). */
export function rateLimitBuckets(
  subject: { keyId: string; account: string; keyLimit?: number | null; accountLimit?: number | null },
  policy: RateLimitPolicy,
): Array<{ bucket: string; limit: number }> {
  const perKey = subject.keyLimit ?? policy.perKey;
  const perAccount = subject.accountLimit ?? policy.perAccount;
  const buckets: Array<{ bucket: string; limit: number }> = [];
  if (perKey > 0) buckets.push({ bucket: `key:${subject.keyId}`, limit: perKey });
  if (perAccount > 0) buckets.push({ bucket: `account:${subject.account}`, limit: perAccount });
  return buckets;
}

/** The start of the one-second window `now` falls in. */
export const windowStart = (now: Date) => new Date(Math.floor(now.getTime() / 1000) * 1000);

const policyOf = (bucket: string): RateLimitQuota["policy"] =>
  bucket.startsWith("key:") ? "key" : "account";

/** The tighter verdict of the buckets, given the hit counts Postgres returned for this request. */
export function verdictFrom(
  buckets: ReadonlyArray<{ bucket: string; limit: number }>,
  hits: ReadonlyArray<{ bucket: string; hits: number }>,
  now: Date,
): RateLimitVerdict | undefined {
  const resetSeconds = Math.max(1, Math.ceil((windowStart(now).getTime() + 1000 - now.getTime()) / 1000));
  const quotas = buckets.map(({ bucket, limit }) => ({ policy: policyOf(bucket), limit }));
  let verdict: RateLimitVerdict | undefined;
  for (const { bucket, limit } of buckets) {
    const count = hits.find((h) => h.bucket === bucket)?.hits ?? 0;
    const candidate = {
      allowed: count <= limit,
      quotas,
      policy: policyOf(bucket),
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds,
    };
    if (!verdict || candidate.remaining < verdict.remaining || !candidate.allowed) verdict = candidate;
  }
  return verdict;
}

/** Drops counters of windows that have ended. */
export async function purgeRateLimitCounters(db: Queryable, now: Date = new Date()): Promise<number> {
  const result = await db.query(
    `delete from rate_limit_counters where window_start < $1::timestamptz - interval '10 seconds'`,
    [now],
  );
  return result.rowCount ?? 0;
}
