// Errors meaning Postgres cannot be reached or is shutting down: the statement may be tried again.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  // read_only_sql_transaction: the read-write address led to a standby. During a failover a `-rw` Service
  // (HAProxy in the fault suite) can route to a node an instant before its promotion, or to a primary being
  // demoted by a switchover; the write must be retried on the new primary, not reported as a failure.
  "25006",
]);

/**
 * True when `error` says the database is away (refused, reset, shutting down, starting up, out of connections,
 * not answering, a standby behind the read-write address) rather than that the statement is wrong: the API answers 503 and the worker waits and retries.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.code && UNAVAILABLE_CODES.has(e.code)) return true;
  // "Query read timeout" is pg's query_timeout: the server stopped answering on an open connection.
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Query read timeout/i.test(
    e.message ?? "",
  );
}

/** How long `whileDatabaseAway` waits for Postgres to come back, and how often it tries again meanwhile. */
const PATIENCE_MS = 120_000;
const RETRY_MS = 250;

/**
 * Runs a statement, waiting out a database that is briefly away (`isDatabaseUnavailable`) instead of failing:
 * it is tried again every `retryMs` until it succeeds, fails for another reason, or `patienceMs` has passed,
 * when the last error is thrown.
 *
 * The worker's delivery runs its claim and its record through it. For the record this closes the duplicate
 * window: until an attempt the receiver has answered is recorded, the email stays `sending`, and a `sending`
 * email is sent again by whoever runs its job next, so failing the task during an outage would open that
 * window as wide as the outage (issue 15). For the claim it keeps the job out of graphile-worker's
 * exponential backoff, which after a few failed attempts during an outage would hold the email back for
 * minutes after the database returned. Bounded: past the patience the error goes to graphile-worker, whose
 * retry sends at least once.
 */
export async function whileDatabaseAway<T>(
  statement: () => Promise<T>,
  options: { patienceMs?: number; retryMs?: number } = {},
): Promise<T> {
  const giveUpAt = Date.now() + (options.patienceMs ?? PATIENCE_MS);
  for (;;) {
    try {
      return await statement();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() > giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? RETRY_MS));
    }
  }
}
