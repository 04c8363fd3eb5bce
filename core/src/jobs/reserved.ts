import type { Queryable } from "../db/pool.ts";

// The reserved delivery lane's own job statements (ADR 0074, 0075, 0078): it takes jobs itself, not through a
// graphile-worker runner, so it also completes, fails, unlocks and hands them over itself.

/**
 * Hands the delivery lanes every `deliver_reserved` job no reserved lane took within `afterMs` of becoming
 * runnable (ADR 0074; `mailroom_rescue_reserved_deliveries`): a burst beyond the reserved slots, or a reserved
 * lane that died with jobs announced to it, waits that long, never for good. Returns how many were handed over.
 */
export async function rescueReservedDeliveries(db: Queryable, afterMs: number): Promise<number> {
  const { rows } = await db.query<{ handed: number }>(
    "select mailroom_rescue_reserved_deliveries(make_interval(secs => $1::float8 / 1000)) as handed",
    [afterMs],
  );
  return rows[0]?.handed ?? 0;
}

/**
 * Completes jobs the reserved lane took itself (`takeReservedDeliveries`, ADR 0075) by deleting them, as
 * graphile-worker completes a job it ran (its `complete_jobs` function refuses a locked job).
 */
export async function completeTakenJobs(db: Queryable, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await db.query({
    name: "mailroom_complete_taken_jobs",
    text: "delete from graphile_worker._private_jobs where id = any($1::bigint[])",
    values: [jobIds],
  });
}

/**
 * Unlocks the jobs locked under the reserved lane's `workerId` that the lane does not hold (`heldJobIds`: taken
 * and not yet completed or failed). After a take whose answer was lost (a failover cutting the connection
 * between its commit and its reply) its jobs are locked under the lane's live id with nobody to run them; the
 * heartbeat never unlocks a live id's jobs, and graphile-worker only after four hours. Unlocked, the next take
 * takes them again (their emails' claims included). Its takes lock no job queue (keyed jobs are not taken).
 * Answers how many it unlocked.
 */
export async function unlockJobsNotHeld(
  db: Queryable,
  workerId: string,
  heldJobIds: readonly string[],
): Promise<number> {
  const { rowCount } = await db.query(
    `update graphile_worker._private_jobs set locked_by = null, locked_at = null
     where locked_by = $1 and not (id = any($2::bigint[]))`,
    [workerId, heldJobIds],
  );
  return rowCount ?? 0;
}

/**
 * Fails a job the reserved lane took itself whose task threw, as graphile-worker fails one: unlocked, its error
 * kept, run again after graphile-worker's backoff (e^min(attempts, 10) seconds) by any lane that lists it, or
 * left failed for good once its attempts are spent.
 */
export async function failTakenJob(
  db: Queryable,
  workerId: string,
  jobId: string,
  message: string,
): Promise<void> {
  await db.query(
    `update graphile_worker._private_jobs
     set last_error = $3, run_at = greatest(now(), run_at) + exp(least(attempts, 10)) * interval '1 second',
         locked_by = null, locked_at = null
     where id = $2::bigint and locked_by = $1`,
    [workerId, jobId, message],
  );
}

/**
 * How many jobs within their account's fair share a `jobs:insert` notification announces: the reserved lane
 * wakes only for these, never for a flood's jobs (each of its fetches walks past every waiting flagged job,
 * ADR 0064). `mailroom_enqueue_deliver` sends `{"count": 0, "withinShare": n}` beside graphile-worker's own
 * notification (count 0: graphile-worker's runners ignore it); any other payload counts 0.
 */
export function withinShareAnnounced(payload: string | undefined): number {
  try {
    const parsed: unknown = JSON.parse(payload ?? "");
    const n =
      typeof parsed === "object" && parsed !== null ? (parsed as { withinShare?: unknown }).withinShare : 0;
    return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : 0;
  } catch {
    return 0;
  }
}
