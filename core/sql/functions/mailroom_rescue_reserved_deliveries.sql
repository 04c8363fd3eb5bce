-- Hands the delivery lanes the `deliver_reserved` jobs (ADR 0074) that no reserved lane took within `p_after`
-- of becoming runnable: each becomes the `deliver` job it would have been (same id, payload, priority,
-- attempts), which every delivery lane runs, and the delivery lanes are nudged. So the reserved lane's task
-- stays an accelerator: a burst within the share larger than its few slots, or a reserved pod killed with jobs
-- announced to it, costs those emails `p_after`, never a stranded job. Called by `rescueReservedDeliveries`
-- (core/src/jobs) from every process that runs the delivery lane, `p_after` after jobs within their share
-- were announced and once per heartbeat. The one writer of a job's task besides graphile-worker (which has no
-- function for it): it reads graphile-worker 0.17's table as worker/src/heartbeat.ts does, and skips a job
-- another transaction has locked (a reserved lane's fetch in flight takes it). Only jobs within the share are
-- read (priority below 100 turns, as `mailroom_enqueue_deliver` adds them): a flood's waiting jobs, at the
-- back of graphile-worker's `(priority, run_at)` index, are never walked. Returns how many were handed over.
create or replace function mailroom_rescue_reserved_deliveries(p_after interval) returns int
language plpgsql set enable_seqscan = off as $$
declare
  v_reserved int;
  v_deliver int;
  v_handed int;
begin
  select t.id into v_reserved from graphile_worker._private_tasks t where t.identifier = 'deliver_reserved';
  select t.id into v_deliver from graphile_worker._private_tasks t where t.identifier = 'deliver';
  if v_reserved is null or v_deliver is null then
    return 0;
  end if;
  with due as (
    select j.id from graphile_worker._private_jobs j
    where j.is_available and j.priority < 100 and j.run_at <= now() - p_after and j.task_id = v_reserved
    for update skip locked
  )
  update graphile_worker._private_jobs j set task_id = v_deliver from due where j.id = due.id;
  get diagnostics v_handed = row_count;
  if v_handed > 0 then
    perform pg_notify('jobs:insert', json_build_object('r', random(), 'count', v_handed)::text);
  end if;
  return v_handed;
end
$$;
