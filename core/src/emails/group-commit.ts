import type { Pool } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
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

interface Pending {
  item: AcceptRequest;
  resolve: (result: AcceptResult) => void;
  reject: (error: unknown) => void;
}

/** Errors caused by what an item holds (SQLSTATE class 22 data exception, 23 integrity), not by the database. */
function isItemError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^2[23]/.test(code);
}

/**
 * Group commit for single sends. A commit with its NOTIFY costs about the same for one email as for fifty,
 * so concurrent requests share transactions: at low load a request commits alone at once; under load,
 * requests arriving while every transaction slot is busy ride together in the next one. Each caller still
 * hears back only after its own transaction committed.
 */
export function createAcceptQueue(pool: Pool, options: AcceptQueueOptions): AcceptQueue {
  const queue: Pending[] = [];
  let active = 0;
  const commit = async (batch: Pending[]): Promise<void> => {
    try {
      const results = await withTransaction(pool, (client) =>
        acceptEmails(
          client,
          options,
          batch.map((p) => p.item),
        ),
      );
      batch.forEach((p, i) => {
        const result = results[i];
        if (result) p.resolve(result);
        else p.reject(new Error("acceptEmails returned fewer results than items"));
      });
    } catch (error) {
      // One item's data error must not fail the requests that shared its transaction: retry each alone.
      if (batch.length > 1 && isItemError(error)) {
        await Promise.all(batch.map((p) => commit([p])));
        return;
      }
      for (const p of batch) p.reject(error);
    }
  };
  const pump = () => {
    while (active < options.concurrency && queue.length > 0) {
      const batch = queue.splice(0, options.maxBatch);
      active += 1;
      void commit(batch).finally(() => {
        active -= 1;
        pump();
      });
    }
  };
  return {
    accept: (item) =>
      new Promise<AcceptResult>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      }),
  };
}
