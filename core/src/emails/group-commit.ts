import { createBatcher, ItemFailure } from "../db/batcher.ts";
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

/** Errors caused by what an item holds (SQLSTATE class 22 data exception, 23 integrity), not by the database. */
function isItemError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^2[23]/.test(code);
}

/**
 * Group commit for single sends. A commit with its NOTIFY costs about the same for one email as for fifty,
 * so concurrent requests share transactions — one accept statement on the pool, its own transaction and a
 * single round trip. Each caller still hears back only after its own transaction committed.
 */
export function createAcceptQueue(pool: Pool, options: AcceptQueueOptions): AcceptQueue {
  const acceptGroup = async (items: AcceptRequest[]): Promise<Array<AcceptResult | ItemFailure>> => {
    try {
      return await acceptEmails(pool, options, items);
    } catch (error) {
      // One item's data error must not fail the requests that shared its transaction: retry each alone, so
      // each caller gets its own result or its own error.
      if (items.length <= 1 || !isItemError(error)) throw error;
      const alone = await Promise.allSettled(items.map((item) => acceptEmails(pool, options, [item])));
      return alone.map((outcome) =>
        outcome.status === "rejected" ? new ItemFailure(outcome.reason) : (outcome.value[0] as AcceptResult),
      );
    }
  };
  return { accept: createBatcher(acceptGroup, options) };
}
