-- The one writer of `webhook_deliver` jobs (payload: WebhookDeliverPayload in core/src/jobs), from the
-- fan-out (unkeyed batches of streams), the claim (wake-ups of waiting or leased heads) and TypeScript
-- (retries, replays, a spent budget). `p_streams` holds each job's streams as a JSON array; a job with a
-- `p_wake` prefix covers one stream and is keyed `<prefix>:<endpoint>:<stream>`, so at most one such
-- wake-up waits per stream and a later one moves it. The latest run time wins for a key given twice.
create or replace function mailroom_enqueue_webhook_deliver(
  p_endpoint_ids uuid[], p_streams jsonb[], p_run_at timestamptz[], p_wake text[]
) returns void language plpgsql as $$
begin
  if cardinality(p_endpoint_ids) > 0 then
    perform graphile_worker.add_jobs(array(
      select j.spec from (
        select distinct on (coalesce(k, n::text))
               row('webhook_deliver', json_build_object('endpointId', e, 'streams', s), null, at, 25, k, null,
                   null)::graphile_worker.job_spec as spec, n
        from (select u.e, u.s, u.at, u.n,
                     u.w || ':' || u.e || ':' || (u.s->>0) as k
              from unnest(p_endpoint_ids, p_streams, p_run_at, p_wake) with ordinality as u(e, s, at, w, n)) x
        order by coalesce(k, n::text), at desc nulls last
      ) j order by j.n
    ));
  end if;
end
$$;
