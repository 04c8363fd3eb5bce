import { createBatcher, isolatingItemErrors } from "../db/batcher.ts";
import type { Pool } from "../db/pool.ts";
import { type AcceptOptions, type AcceptRequest, acceptEmails } from "./accept.ts";
import type { AcceptResult } from "./types.ts";

export interface AcceptQueueOptions extends AcceptOptions {
  /** Transactions in flight at once; while all are busy, new requests gather for the next one. */
  concurrency: number;
  /** Most items one transaction carries. */
  maxBatch: number;
}

export interface AcceptQueue {
  /** Resolves once the item's transaction has committed (a 2xx may then be sent), rejects if it failed. */
  accept(item: AcceptRequest): Promise<AcceptResult>;
}

/**
 * Group commit for single sends. A commit with its NOTIFY costs about the same for one email as for fifty,
 * so concurrent requests share transactions — one accept statement on the pool, its own transaction and a
 * single round trip. Each caller still hears back only after its own transaction committed.
 */
export function createAcceptQueue(pool: Pool, options: AcceptQueueOptions): AcceptQueue {
  // One item's data error must not fail the requests that shared its statement: each is then retried alone.
  const acceptGroup = isolatingItemErrors((items: AcceptRequest[]) => acceptEmails(pool, options, items));
  return { accept: createBatcher(acceptGroup, options) };
}
