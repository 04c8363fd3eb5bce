-- Appends one timeline event per email and, for the states that are webhook events, writes the matching
-- `email.<state>` outbox events (ids given, in order) with one fan-out job, in the caller's transaction.
create or replace function mailroom_append_email_events(
  p_email_ids uuid[], p_event_ids uuid[], p_state text, p_detail jsonb
) returns void language plpgsql
-- Generic plans: with array parameters the planner keeps choosing custom plans, i.e. plans every call.
set plan_cache_mode = force_generic_plan as $$
declare
  v_type text := 'email.' || p_state;
  v_written uuid[];
begin
  insert into email_events (email_id, type, detail) select unnest(p_email_ids), p_state, p_detail;
  -- `sending` and `rescheduled` are internal steps, and `delayed` (a late soft bounce) is news for the
  -- timeline only: none is a webhook event. `complained` is not a state but is one (issue 17).
  if p_state not in ('scheduled', 'queued', 'delivered', 'deferred', 'bounced', 'failed', 'canceled',
                     'complained') then
    return;
  end if;
  -- Most accounts have no endpoint: two index probes answer that before the outbox statement is run.
  if not exists (select 1 from emails e where e.id = any(p_email_ids)
                 and mailroom_endpoint_subscribed(e.account, v_type)) then
    return;
  end if;
  with written as (
    insert into webhook_events (id, account, type, stream, data)
    select u.event_id, e.account, v_type, 'email:' || e.id,
           mailroom_email_event_data(e.id, e.from_header, e.to_addresses, e.subject, e.tags, e.category)
             || p_detail
    from unnest(p_email_ids, p_event_ids) with ordinality as u(email_id, event_id, n)
    join emails e on e.id = u.email_id
    where mailroom_endpoint_subscribed(e.account, v_type)
    order by u.n
    returning id
  )
  select array_agg(id) into v_written from written;
  if v_written is not null then
    perform graphile_worker.add_job('webhook_fanout', json_build_object('eventIds', v_written),
                                    max_attempts => 25);
  end if;
end
$$;
