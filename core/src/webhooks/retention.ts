import type { Queryable } from "../db/pool.ts";
import { inBatches, type PurgeOptions } from "../db/purge.ts";

/**
 * Deletes webhook events older than `retentionDays` that have been fanned out, with their deliveries and
 * attempts (cascading foreign keys), oldest first in short batches. Deliveries give up within days, far
 * inside any retention; an event not yet fanned out stays until it is. Returns how many events went.
 */
export async function purgeExpiredWebhookEvents(
  db: Queryable,
  retentionDays: number,
  options: PurgeOptions = {},
): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - retentionDays * 86_400_000);
  return inBatches(options, (limit) =>
    db.query(
      `with doomed as (
         select id from webhook_events
         where created_at < $1 and fanned_out_at is not null
         order by created_at limit $2
         for update skip locked
       )
       delete from webhook_events w using doomed where w.id = doomed.id`,
      [cutoff, limit],
    ),
  );
}
