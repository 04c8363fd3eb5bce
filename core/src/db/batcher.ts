/** A batch's answer for one item that failed on its own: its caller is rejected with `error`. */
export class ItemFailure {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/**
 * Runs a batch of items in one go (one statement, one transaction) and returns one result per item, in
 * order; an `ItemFailure` fails that item's caller alone.
 */
export type BatchRunner<I, O> = (items: I[]) => Promise<Array<O | ItemFailure>>;

export interface BatcherOptions {
  /** Batches in flight at once; while all are busy, new items gather for the next one. */
  concurrency: number;
  /** Most items one batch carries. */
  maxBatch: number;
  /**
   * Longest an item waits for a free slot (default 1000 ms): past it the waiting items go out as an extra
   * batch anyway, so a stalled database (batches that hang until the query timeout) delays callers by one
   * timeout, not one per batch queued ahead of them.
   */
  maxWaitMs?: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces concurrent calls into batches: at low load an item runs alone at once; under load, items arriving
 * while every slot is busy ride together in the next batch. A round trip to Postgres costs about as much for
 * one row as for fifty, so this is what lets concurrent requests share statements. Each caller still hears
 * back only once its own batch finished; a batch that throws rejects each of its callers with that error.
 */
export function createBatcher<I, O>(
  run: BatchRunner<I, O>,
  options: BatcherOptions,
): (item: I) => Promise<O> {
  const queue: Pending<I, O>[] = [];
  let active = 0;
  let overdue: NodeJS.Timeout | undefined;
  const flush = async (batch: Pending<I, O>[]): Promise<void> => {
    try {
      const results = await run(batch.map((p) => p.item));
      batch.forEach((p, i) => {
        const result = results[i];
        if (i >= results.length) p.reject(new Error("a batch returned fewer results than items"));
        else if (result instanceof ItemFailure) p.reject(result.error);
        else p.resolve(result as O);
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  };
  const start = (batch: Pending<I, O>[]) => {
    active += 1;
    void flush(batch).finally(() => {
      active -= 1;
      pump();
    });
  };
  const pump = () => {
    while (active < options.concurrency && queue.length > 0) start(queue.splice(0, options.maxBatch));
    if (queue.length === 0) {
      clearTimeout(overdue);
      overdue = undefined;
    } else if (!overdue) {
      overdue = setTimeout(() => {
        overdue = undefined;
        while (queue.length > 0) start(queue.splice(0, options.maxBatch));
      }, options.maxWaitMs ?? 1_000);
      overdue.unref();
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      pump();
    });
}

/** Errors caused by what an item holds (SQLSTATE class 22 data exception, 23 integrity), not by the database. */
export function isItemError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^2[23]/.test(code);
}

/**
 * A batch runner that, when a batch fails on what one item holds (`isItemError`: the failed statement changed
 * nothing), runs the items again one at a time, so that item fails alone instead of every caller it shared
 * the statement with. A hostile request can then never fail its neighbours.
 */
export function isolatingItemErrors<I, O>(run: (items: I[]) => Promise<O[]>): BatchRunner<I, O> {
  return async (items) => {
    try {
      return await run(items);
    } catch (error) {
      if (items.length <= 1 || !isItemError(error)) throw error;
      const alone = await Promise.allSettled(items.map((item) => run([item])));
      return alone.map((o) => (o.status === "rejected" ? new ItemFailure(o.reason) : (o.value[0] as O)));
    }
  };
}
