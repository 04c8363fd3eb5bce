// Errors meaning Postgres cannot be reached or is shutting down: the statement may be tried again.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "57P01",
  "57P03",
  "53300",
]);

/**
 * True when `error` says the database is away (refused, reset, shutting down, starting up, out of connections,
 * not answering) rather than that the statement is wrong: the API answers 503 and the worker waits and retries.
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
