import type pg from "pg";
import { until } from "../../support/wait.ts";

/**
 * Jobs still locked, and accepted emails not in a final state: both must be zero once a run settles. Read until
 * they are (the last count after `timeoutMs`): the sink holds the last email before its worker has recorded it,
 * and its job stays locked until the batched completion.
 */
export function leftovers(
  probe: pg.Pool,
  timeoutMs = 30_000,
): Promise<{ lockedJobs: number; unsettled: number }> {
  const read = async () => {
    const { rows } = await probe.query<{ locked: string; unsettled: string }>(
      `select (select count(*) from graphile_worker._private_jobs where locked_at is not null) as locked,
              (select count(*) from emails where status in ('queued', 'sending', 'deferred')) as unsettled`,
    );
    return { lockedJobs: Number(rows[0]?.locked), unsettled: Number(rows[0]?.unsettled) };
  };
  return until(read, (left) => left.lockedJobs === 0 && left.unsettled === 0, timeoutMs);
}
