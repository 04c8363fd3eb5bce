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
