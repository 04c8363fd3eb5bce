import type { Queryable } from "../db/pool.ts";

/** The statuses of mail that has not left yet, as the backlog gauges report them. */
export const UNSENT_STATUSES = ["scheduled", "queued", "deferred", "sending"] as const;
export type UnsentStatus = (typeof UNSENT_STATUSES)[number];

export interface Backlog {
  counts: Record<UnsentStatus, number>;
  /** Seconds since the oldest queued email was accepted; 0 when none is queued. */
  oldestQueuedSeconds: number;
  /** Seconds since the oldest deferred email was accepted; 0 when none is deferred. */
  oldestDeferredSeconds: number;
}

// Every condition names the statuses literally, so the planner proves the partial index `emails_unsent`
// (migration 0019) applies: the counts are an index-only scan of the unsent rows alone, and each oldest is
// the index's first entry of its status, read without touching the table: ids are UUIDv7, so the id says
// when the email was accepted. (Reading created_at instead let the planner walk the primary key through
// every delivered row when the backlog was large; ADR 0017 has the measurements.)
export const BACKLOG_SQL = `
  select
    (select coalesce(jsonb_object_agg(status, n), '{}') from (
       select status, count(*) as n from emails
        where status in ('scheduled', 'queued', 'deferred', 'sending') group by status) c) as counts,
    (select id from emails where status = 'queued' order by status, id limit 1) as oldest_queued,
    (select id from emails where status = 'deferred' order by status, id limit 1) as oldest_deferred,
    (extract(epoch from now()) * 1000)::float8 as now_ms`;

/** The time a UUIDv7 was made (its first 48 bits, in milliseconds since the epoch). */
function uuidv7Millis(id: string): number {
  return Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);
}

/** How much mail waits, and how long the oldest has waited (the backlog gauges' one query). */
export async function readBacklog(db: Queryable): Promise<Backlog> {
  const { rows } = await db.query<{
    counts: Partial<Record<UnsentStatus, string>>;
    oldest_queued: string | null;
    oldest_deferred: string | null;
    now_ms: number;
  }>(BACKLOG_SQL);
  const row = rows[0];
  const counts = Object.fromEntries(UNSENT_STATUSES.map((s) => [s, Number(row?.counts[s] ?? 0)])) as Record<
    UnsentStatus,
    number
  >;
  const age = (id: string | null | undefined) =>
    id && row ? Math.max(0, (row.now_ms - uuidv7Millis(id)) / 1000) : 0;
  return {
    counts,
    oldestQueuedSeconds: age(row?.oldest_queued),
    oldestDeferredSeconds: age(row?.oldest_deferred),
  };
}
