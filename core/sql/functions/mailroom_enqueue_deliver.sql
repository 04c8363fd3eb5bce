-- The one writer of `deliver` jobs (payload: DeliverPayload in core/src/jobs): the accept statement, the
-- record of a deferred attempt and a reschedule all add them here. A keyed job (`deliver:<email id>`:
-- scheduled sends and retries, which cancel removes and reschedule moves) replaces the email's waiting one;
-- unkeyed jobs cost graphile-worker no key pass. Inputs are parallel arrays, in the order to add.
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
$$;
