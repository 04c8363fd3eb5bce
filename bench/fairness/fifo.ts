/**
 * The alternative measured beside fair delivery in bench/fairness/main.ts: the `deliver` enqueue as it was
 * before ADR 0053 (every job at graphile-worker's default priority, so jobs leave in the order they were
 * added), swapped into the bench's own database for one phase and put back by `migrate`, which applies
 * every SQL function again.
 */
import type { Pool } from "@mailroom/core/db";
import { migrate } from "@mailroom/core/db";

const FIFO_ENQUEUE = `
create or replace function mailroom_enqueue_deliver(
  p_email_ids uuid[], p_run_at timestamptz[], p_traces jsonb[], p_keyed boolean[]
) returns void language plpgsql set plan_cache_mode = force_generic_plan as $$
begin
  if cardinality(p_email_ids) > 0 then
    perform graphile_worker.add_jobs(array(
      select row('deliver',
                 case when u.trace is null then json_build_object('emailId', u.id)
                      else json_build_object('emailId', u.id, 'trace', u.trace) end,
                 null, u.run_at, null, case when u.keyed then 'deliver:' || u.id end, null, null
                )::graphile_worker.job_spec
      from unnest(p_email_ids, p_run_at, p_traces, p_keyed) with ordinality as u(id, run_at, trace, keyed, n)
      order by u.n
    ));
  end if;
end
$$`;

/** Runs `phase` with first-in-first-out delivery, then restores the shipped functions. */
export async function withFifoEnqueue<T>(pool: Pool, url: string, phase: () => Promise<T>): Promise<T> {
  await pool.query(FIFO_ENQUEUE);
  try {
    return await phase();
  } finally {
    await migrate({ url });
  }
}
