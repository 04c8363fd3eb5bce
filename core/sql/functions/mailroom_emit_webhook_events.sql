-- Writes outbox events (ids given, in order) that some enabled endpoint subscribes to, and adds one fan-out
-- job for them, in the caller's transaction. Returns the ids written, in the given order.
create or replace function mailroom_emit_webhook_events(
  p_ids uuid[], p_accounts text[], p_types text[], p_streams text[], p_data jsonb[]
) returns uuid[] language plpgsql as $$
declare
  v_written uuid[];
begin
  -- `with ordinality` keeps the caller's order in the identity column, which orders deliveries per stream.
  with written as (
    insert into webhook_events (id, account, type, stream, data)
    select u.id, u.a, u.t, u.s, u.d
    from unnest(p_ids, p_accounts, p_types, p_streams, p_data) with ordinality as u(id, a, t, s, d, n)
    where mailroom_endpoint_subscribed(u.a, u.t)
    order by u.n
    returning id
  )
  select array_agg(u.id order by u.n) into v_written
  from unnest(p_ids) with ordinality as u(id, n) where u.id in (select id from written);
  if v_written is not null then
    perform graphile_worker.add_job('webhook_fanout', json_build_object('eventIds', v_written),
                                    max_attempts => 25);
  end if;
  return coalesce(v_written, '{}');
end
$$;
