-- Records successful webhook attempts (one per delivery, each naming its endpoint) and ends the failure
-- streak of their endpoints, for many streams in one call; an endpoint's first 2xx is remembered
-- (answered_2xx_at: failures keep response excerpts only from then on, see mailroom_webhook_record_failure).
create or replace function mailroom_webhook_record_successes(
  p_ids uuid[], p_endpoint_ids uuid[], p_attempts integer[], p_at timestamptz[], p_duration_ms integer[],
  p_status_codes integer[], p_excerpts text[]
) returns void language plpgsql as $$
begin
  -- The endpoint row is written only when a failure streak ends or on its first 2xx: writing it on every
  -- success would serialise all deliveries to the endpoint on its row lock.
  perform 1 from webhook_endpoints
  where id = any(p_endpoint_ids) and (failing_since is not null or answered_2xx_at is null)
  order by id for update;
  perform 1 from webhook_deliveries where id = any(p_ids) order by id for update;
  insert into webhook_attempts (delivery_id, endpoint_id, attempt, at, duration_ms, status_code, response_excerpt)
  select u.id, d.endpoint_id, u.attempt, u.at, u.duration_ms, u.status_code, u.excerpt
  from unnest(p_ids, p_attempts, p_at, p_duration_ms, p_status_codes, p_excerpts)
    as u(id, attempt, at, duration_ms, status_code, excerpt)
  join webhook_deliveries d on d.id = u.id and d.id = any(p_ids);
  update webhook_deliveries d
  set state = 'succeeded', attempts = d.attempts + 1, lease_until = null, last_status_code = u.status_code,
      last_error = null, delivered_at = u.at, updated_at = now()
  from unnest(p_ids, p_at, p_status_codes) as u(id, at, status_code)
  -- `any(p_ids)` too: a primary-key lookup even when the statistics of a table that just grew are stale.
  where d.id = u.id and d.id = any(p_ids);
  update webhook_endpoints set failing_since = null, answered_2xx_at = coalesce(answered_2xx_at, now())
  where id = any(p_endpoint_ids) and (failing_since is not null or answered_2xx_at is null);
end
$$;
