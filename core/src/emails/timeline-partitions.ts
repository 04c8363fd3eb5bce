import type { Queryable } from "../db/pool.ts";

/** How many weeks after the current one have their timeline partition made ahead (ADR 0043). */
export const TIMELINE_WEEKS_AHEAD = 4;

/**
 * Makes the weekly partitions of `email_events` from `now`'s week to TIMELINE_WEEKS_AHEAD weeks later, those
 * missing (mailroom_create_email_event_partitions); the names of those made. Run by the purge job every few
 * minutes, so a week's partition exists weeks before its first email: the default partition only gets the
 * events of the week an installation (or this release) started in.
 */
export async function prepareTimelinePartitions(db: Queryable, now = new Date()): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "select mailroom_create_email_event_partitions($1, $2) as name",
    [now, TIMELINE_WEEKS_AHEAD],
  );
  return rows.map((r) => r.name);
}

/**
 * Drops the timeline partitions whose emails were all accepted before `cutoff` and are all finished
 * (mailroom_drop_email_event_partitions); the names of those dropped. The caller gives the cutoff of the
 * longest retention in force (`retentionPlan`), so no account's retention is cut short.
 */
export async function dropExpiredTimelinePartitions(db: Queryable, cutoff: Date): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "select mailroom_drop_email_event_partitions($1) as name",
    [cutoff],
  );
  return rows.map((r) => r.name);
}
