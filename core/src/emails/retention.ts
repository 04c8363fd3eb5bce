import type { Queryable } from "../db/pool.ts";
import { inBatches, type PurgeOptions } from "../db/purge.ts";

/** The statuses an email never leaves: only these are purged, whatever their age. */
const FINISHED = ["delivered", "bounced", "failed", "canceled"];

/**
 * Deletes finished emails created and last changed more than `retentionDays` ago, oldest first, with their
 * timeline and attachments (cascading foreign keys). Ids are UUIDv7, so "created before the cutoff" is a range
 * of the primary key: each batch reads the index from its start, never the table. Returns how many went.
 */
export async function purgeExpiredEmails(
  db: Queryable,
  retentionDays: number,
  options: PurgeOptions = {},
): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - retentionDays * 86_400_000);
  return inBatches(options, (limit) =>
    db.query(
      `with doomed as (
         select id from emails
         where id < mailroom_uuidv7_floor($1) and status = any($2) and updated_at < $1
         order by id limit $3
         for update skip locked
       )
       delete from emails e using doomed where e.id = doomed.id`,
      [cutoff, FINISHED, limit],
    ),
  );
}
