import type { Queryable } from "../db/pool.ts";

// The one writer of `destination_shaping` (ADR 0066), called by the worker's publisher
// (worker/src/shaping-publisher.ts); the reads are the transit view's (store.ts).

/** How often a worker publishes its destinations' shaping state (also at once on a backoff or recovery). */
export const SHAPING_PUBLISH_SECONDS = 5;
/** A worker that has not published for this long is ignored (it stopped, crashed or lost the database). */
export const SHAPING_STALE_SECONDS = 30;
// Rows of workers gone this long are deleted by any publishing worker (a crashed one cannot clear its own).
const FORGET_SECONDS = 3_600;

/** One destination's pace as one worker process holds it. */
export interface ShapingStateRow {
  /** `group:<name>` or `host:<mx>`. */
  destination: string;
  level: number;
  concurrency: number;
  ratePerMinute: number;
  inFlight: number;
  pausedUntil?: Date | undefined;
  lastReply: string;
}

/**
 * Replaces worker `workerId`'s published state with `states` in one statement (destinations it no longer
 * holds are dropped), and forgets workers silent for an hour.
 */
export async function publishShapingState(
  db: Queryable,
  workerId: string,
  states: readonly ShapingStateRow[],
): Promise<void> {
  const rows = states.map((s) => ({
    destination: s.destination.slice(0, 260),
    level: s.level,
    concurrency: s.concurrency,
    rate_per_minute: s.ratePerMinute,
    in_flight: s.inFlight,
    paused_until: s.pausedUntil?.toISOString() ?? null,
    last_reply: s.lastReply.slice(0, 255),
  }));
  await db.query(
    `with given as (
       select * from jsonb_to_recordset($2::jsonb) as r(destination text, level real, concurrency integer,
         rate_per_minute real, in_flight integer, paused_until timestamptz, last_reply text)
     ), dropped as (
       delete from destination_shaping d
       where (d.worker_id = $1 and not exists (select 1 from given g where g.destination = d.destination))
          or (d.worker_id <> $1 and d.updated_at < now() - make_interval(secs => $3))
     )
     insert into destination_shaping as t (worker_id, destination, level, concurrency, rate_per_minute,
                                           in_flight, paused_until, last_reply, updated_at)
     select $1, destination, level, concurrency, rate_per_minute, in_flight, paused_until, last_reply, now()
     from given order by destination
     on conflict (worker_id, destination) do update set level = excluded.level,
       concurrency = excluded.concurrency, rate_per_minute = excluded.rate_per_minute,
       in_flight = excluded.in_flight, paused_until = excluded.paused_until,
       last_reply = excluded.last_reply, updated_at = excluded.updated_at`,
    [workerId, JSON.stringify(rows), FORGET_SECONDS],
  );
}

/** Drops worker `workerId`'s published state (a clean stop). */
export async function clearShapingState(db: Queryable, workerId: string): Promise<void> {
  await db.query("delete from destination_shaping where worker_id = $1", [workerId]);
}

/** A destination's current shaping state, as the transit view shows it. */
export interface ShapingState {
  /** Below full level (concurrency and rate lowered), or paused now. */
  backedOff: boolean;
  pausedUntil: Date | null;
  level: number;
  concurrency: number;
  ratePerMinute: number;
  inFlight: number;
  lastReply: string | null;
  updatedAt: Date;
  /** Workers that published the destination recently, and how many of them hold it backed off. */
  workers: number;
  workersBackedOff: number;
}

/**
 * The shaping state of `destinations`: per destination the most recent row among workers that published
 * within `SHAPING_STALE_SECONDS` (none: no live worker holds it, it is at full level everywhere).
 */
export async function readShapingStates(
  db: Queryable,
  destinations: readonly string[],
): Promise<Map<string, ShapingState>> {
  if (destinations.length === 0) return new Map();
  const { rows } = await db.query<ShapingState & { destination: string }>(
    `select distinct on (destination) destination, level < 1 or coalesce(paused_until > now(), false) as "backedOff",
            case when paused_until > now() then paused_until end as "pausedUntil", level,
            concurrency, rate_per_minute as "ratePerMinute", in_flight as "inFlight",
            nullif(last_reply, '') as "lastReply", updated_at as "updatedAt",
            (count(*) over w)::int as workers,
            (count(*) filter (where level < 1 or paused_until > now()) over w)::int as "workersBackedOff"
     from destination_shaping
     where destination = any($1::text[]) and updated_at >= now() - make_interval(secs => $2)
     window w as (partition by destination)
     order by destination, updated_at desc`,
    [destinations, SHAPING_STALE_SECONDS],
  );
  return new Map(rows.map(({ destination, ...state }) => [destination, state]));
}
