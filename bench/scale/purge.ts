/**
 * The retention purges of bench/scale (issue 28 item 5, ADR 0043, 0055), last at each size since they shrink the
 * history: first the oldest day (a 29-day retention over the 30 seeded days: rows deleted, what refers to them
 * by the triggers), then the rest of the oldest week, dropped whole (the retention that puts that week's end
 * just past its cutoff: its timeline's partition, then its emails' partition, what refers to them deleted by
 * id range; its unsent emails, which the seed spreads over every day, are failed first).
 */
import type { Pool } from "@mailroom/core/db";
import { prepareTimelinePartitions, purgeExpiredEmails } from "@mailroom/core/emails";

const DAY_MS = 86_400_000;

export interface PurgeFigures {
  emails: number;
  partitions: string[];
  seconds: number;
}

/**
 * Makes the weekly partitions (log and timeline) of the seeded 30 days and ahead, as an installation running
 * for those weeks would have them (the purge job makes them ahead of time).
 */
export async function partitionSeededWeeks(pool: Pool, days: number): Promise<void> {
  await prepareTimelinePartitions(pool, new Date(Date.now() - (days + 7) * DAY_MS));
  await prepareTimelinePartitions(pool, new Date());
}

async function timed(pool: Pool, days: number, budgetMs: number): Promise<PurgeFigures> {
  const started = performance.now();
  const { emails, partitions } = await purgeExpiredEmails(pool, days, { budgetMs });
  return { emails, partitions, seconds: (performance.now() - started) / 1000 };
}

/** The oldest day by rows, then the rest of the oldest week by partition drops. */
export async function measurePurges(
  pool: Pool,
  budgetMs: number,
): Promise<{ day: PurgeFigures; week: PurgeFigures }> {
  const day = await timed(pool, 29, budgetMs);
  const { rows } = await pool.query<{ lower_id: string; upper_id: string }>(
    "select lower_id, upper_id from mailroom_email_event_partition_bounds() order by upper_id limit 1",
  );
  const upper = rows[0]?.upper_id;
  // The seed spreads its unsent mail (1 % queued, 1 % deferred) over all 30 days; a real history has none
  // weeks old (retries end within days), and an unsent email keeps its week. Those of the oldest week fail.
  await pool.query(
    `update emails set status = 'failed', failure_reason = 'retries_exhausted'
     where id >= $1 and id < $2 and status in ('scheduled', 'queued', 'deferred', 'sending')`,
    [rows[0]?.lower_id, upper],
  );
  // A UUIDv7's first 48 bits are its milliseconds.
  const end = upper ? Number.parseInt(upper.replaceAll("-", "").slice(0, 12), 16) : Date.now();
  const week = await timed(pool, Math.max(1, Math.floor((Date.now() - end) / DAY_MS)), budgetMs);
  return { day, week };
}
