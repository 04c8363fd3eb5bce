import type { Queryable } from "../db/pool.ts";

/** How many weeks after the current one have their partitions (timeline and log) made ahead (ADR 0043, 0055). */
export const TIMELINE_WEEKS_AHEAD = 4;

/**
 * Makes the weekly partitions of `emails` and `email_events` from `now`'s week to TIMELINE_WEEKS_AHEAD weeks
 * later, those missing (mailroom_create_email_partitions, mailroom_create_email_event_partitions); the names
 * of those made. Run by the purge job every few minutes, so a week's partitions exist weeks before its first
 * email: the default partitions only get the rows of the week an installation (or a release) started in.
 */
export async function prepareTimelinePartitions(db: Queryable, now = new Date()): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `select mailroom_create_email_partitions($1, $2) as name
     union all select mailroom_create_email_event_partitions($1, $2)`,
    [now, TIMELINE_WEEKS_AHEAD],
  );
  return rows.map((r) => r.name);
}

/**
 * Drops the weeks whose emails were all accepted before `cutoff` and are all finished; the names of the
 * partitions dropped. The timeline's weeks go first (mailroom_drop_email_event_partitions), then the emails'
 * (mailroom_drop_email_partitions, which deletes what refers to them by id range first), so dropping a week
 * of emails finds its timeline already gone. The caller gives the cutoff of the longest retention in force
 * (`retentionPlan`), so no account's retention is cut short.
 */
export async function dropExpiredTimelinePartitions(db: Queryable, cutoff: Date): Promise<string[]> {
  const events = await db.query<{ name: string }>("select mailroom_drop_email_event_partitions($1) as name", [
    cutoff,
  ]);
  const emails = await db.query<{ name: string }>("select mailroom_drop_email_partitions($1) as name", [
    cutoff,
  ]);
  return [...events.rows, ...emails.rows].map((r) => r.name);
}
