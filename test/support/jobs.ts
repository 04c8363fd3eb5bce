import type { Queryable } from "@mailroom/core/db";

/** A clean slate for the fair-delivery cases: no job, no heartbeat, no account clock. */
export async function clearJobsAndClocks(db: Queryable): Promise<void> {
  await db.query("delete from graphile_worker._private_jobs");
  await db.query("delete from worker_heartbeats");
  await db.query("delete from delivery_turns");
}

/**
 * A heartbeat of a live reserved lane (ADR 0074) under `workerId`, fresh for `until` (an interval; negative: gone
 * stale): while one is fresh, `mailroom_enqueue_deliver` adds the jobs within their share as `deliver_reserved`.
 */
export async function beatReserved(db: Queryable, workerId: string, until = "10 seconds"): Promise<void> {
  await db.query(
    `insert into worker_heartbeats (worker_id, beat_at, reserved_until) values ($1, now(), now() + $2::interval)
     on conflict (worker_id) do update set beat_at = now(), reserved_until = excluded.reserved_until`,
    [workerId, until],
  );
}
