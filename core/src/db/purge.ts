// The retention purges' shared loop (emails, webhook events): short batches under a time budget.

export interface PurgeOptions {
  /** Rows per statement: each batch is its own short transaction, so the purge never holds many locks. */
  batchSize?: number;
  /** Stop after this long and leave the rest to the next run (the purge runs every few minutes). */
  budgetMs?: number;
  now?: Date;
}

/** Runs `batch` until it deletes fewer rows than asked or the time budget is spent; the total deleted. */
export async function inBatches(
  options: PurgeOptions,
  batch: (limit: number) => Promise<{ rowCount: number | null }>,
): Promise<number> {
  const batchSize = options.batchSize ?? 5_000;
  const deadline = Date.now() + (options.budgetMs ?? 60_000);
  let total = 0;
  for (;;) {
    const deleted = (await batch(batchSize)).rowCount ?? 0;
    total += deleted;
    if (deleted < batchSize || Date.now() >= deadline) return total;
  }
}
