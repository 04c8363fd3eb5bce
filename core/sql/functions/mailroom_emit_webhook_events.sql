-- The one writer of the webhook outbox (issue 20 item 2): writes the events (ids given, in order) that some
-- enabled endpoint subscribes to, with the trace context of the change each reports, and adds one fan-out
-- job for them, in the caller's transaction. Called by the accept statement, mailroom_append_email_events
-- and emitEvents (core/src/webhooks/outbox.ts). Returns the ids written, in the given order.
drop function if exists mailroom_emit_webhook_events(uuid[], text[], text[], text[], jsonb[]);
create or replace function mailroom_emit_webhook_events(
  p_ids uuid[], p_accounts text[], p_types text[], p_streams text[], p_data jsonb[], p_traces jsonb[]
) returns uuid[] language plpgsql as $$
declare
  v_written uuid[];
begin
  -- `with ordinality` keeps the caller's order in the identity column, which orders deliveries per stream.
  with written as (
    insert into webhook_events (id, account, type, stream, data, trace)
    select u.id, u.a, u.t, u.s, u.d, u.tr
    from unnest(p_ids, p_accounts, p_types, p_streams, p_data, p_traces) with ordinality as u(id, a, t, s, d, tr, n)
    where mailroom_endpoint_subscribed(u.a, u.t)
    order by u.n
    returning id
  )
  select array_agg(u.id order by u.n) into v_written
  from unnest(p_ids) with ordinality as u(id, n) where u.id in (select id from written);
  perform mailroom_enqueue_webhook_fanout(v_written);
  return coalesce(v_written, '{}');
end
$$;
