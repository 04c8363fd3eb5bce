-- Turns events into deliveries, one per subscribed enabled endpoint of the event's account, and adds unkeyed
-- `webhook_deliver` jobs covering them (mailroom_enqueue_webhook_deliver): up to 100 streams of one endpoint per job, since one job per stream
-- would cap throughput at graphile-worker's jobs/s. A stream whose head waits for a retry is left alone by
-- the job (the head check in mailroom_webhook_claim_heads), so batching never lets a new event overtake an
-- older one. Repeating it is harmless: a delivery exists once per pair. Returns the deliveries created.
create or replace function mailroom_webhook_fan_out(p_event_ids uuid[]) returns integer language plpgsql as $$
declare
  v_created integer;
  v_endpoints uuid[];
  v_streams jsonb[];
begin
  update webhook_events set fanned_out_at = now() where id = any(p_event_ids) and fanned_out_at is null;
  with created as (
    insert into webhook_deliveries (endpoint_id, event_id, stream, event_seq)
    select p.id, v.id, v.stream, v.seq
    from webhook_events v
    join webhook_endpoints p on p.account = v.account and p.enabled
      and (cardinality(p.event_types) = 0 or v.type = any(p.event_types))
    where v.id = any(p_event_ids)
    order by v.seq
    on conflict (endpoint_id, event_id) do nothing
    returning endpoint_id, stream, event_seq
  ), streams as (
    select endpoint_id, stream,
           (row_number() over (partition by endpoint_id order by min(event_seq)) - 1) / 100 as chunk,
           min(event_seq) as first_seq
    from created group by endpoint_id, stream
  )
  select (select count(*) from created),
         array(select endpoint_id from streams group by endpoint_id, chunk order by endpoint_id, chunk),
         array(select jsonb_agg(stream order by first_seq) from streams group by endpoint_id, chunk
               order by endpoint_id, chunk)
  into v_created, v_endpoints, v_streams;
  perform mailroom_enqueue_webhook_deliver(v_endpoints, v_streams, array_fill(null::timestamptz,
    array[cardinality(v_endpoints)]), array_fill(null::text, array[cardinality(v_endpoints)]));
  return v_created;
end
$$;
