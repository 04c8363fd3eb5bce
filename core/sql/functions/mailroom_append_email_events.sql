-- Appends one timeline event per email and, for the states that are webhook events, has the matching
-- `email.<state>` outbox events written (ids given, in order; mailroom_emit_webhook_events, with the trace
-- context of the change), in the caller's transaction.
drop function if exists mailroom_append_email_events(uuid[], uuid[], text, jsonb);
create or replace function mailroom_append_email_events(
  p_email_ids uuid[], p_event_ids uuid[], p_state text, p_detail jsonb, p_trace jsonb
) returns void language plpgsql
-- Generic plans: with array parameters the planner keeps choosing custom plans, i.e. plans every call.
set plan_cache_mode = force_generic_plan as $$
declare
  v_type text := 'email.' || p_state;
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
  perform mailroom_emit_webhook_events(
    array_agg(u.event_id order by u.n), array_agg(e.account order by u.n), array_agg(v_type order by u.n),
    array_agg('email:' || e.id order by u.n),
    array_agg(mailroom_email_event_data(e.id, e.from_header, e.to_addresses, e.subject, e.tags, e.category)
                || p_detail order by u.n),
    array_agg(p_trace order by u.n))
  from unnest(p_email_ids, p_event_ids) with ordinality as u(email_id, event_id, n)
  join emails e on e.id = u.email_id;
end
$$;
