import type { Queryable } from "../db/pool.ts";

// Short statements: a year of a busy installation's trail is worked off over several runs without long locks.
const BATCH = 5_000;
const MAX_BATCHES = 20;

/**
 * Deletes audit rows older than `days` (0: keeps everything), at most `BATCH * MAX_BATCHES` per call; the
 * purge job calls it every five minutes. Returns how many were deleted.
 */
export async function purgeAuditEvents(db: Queryable, days: number, now: Date = new Date()): Promise<number> {
  if (days <= 0) return 0;
  const before = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const { rowCount } = await db.query(
      `delete from audit_events where id in (select id from audit_events where at < $1 limit $2)`,
      [before, BATCH],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < BATCH) break;
  }
  return total;
}
