-- Records one failed webhook attempt whose plan TypeScript decided (planAfterFailure: retry at
-- `p_next_attempt_at`, or give up when it is null): the endpoint's failure streak starts if it had not, the
-- attempt row is written, the delivery is updated and a retry's wake-up job is added, in one statement.
-- The writer of failures, as mailroom_webhook_record_successes is of successes. The response excerpt is kept
-- only for an endpoint that has answered 2xx once (ADR 0027): its owner's receiver, not any service a URL
-- may point at.
create or replace function mailroom_webhook_record_failure(
  p_delivery_id uuid, p_endpoint_id uuid, p_stream text, p_attempt integer, p_at timestamptz,
  p_duration_ms integer, p_status_code integer, p_excerpt text, p_error text, p_next_attempt_at timestamptz,
  p_step integer
) returns void language plpgsql as $$
declare
  v_answered timestamptz;
begin
  -- Endpoint before delivery: the locking order of mailroom_webhook_record_successes.
  update webhook_endpoints set failing_since = coalesce(failing_since, p_at) where id = p_endpoint_id
  returning answered_2xx_at into v_answered;
  insert into webhook_attempts
    (delivery_id, endpoint_id, attempt, at, duration_ms, status_code, response_excerpt, error, next_attempt_at)
  values (p_delivery_id, p_endpoint_id, p_attempt, p_at, p_duration_ms, p_status_code,
          case when v_answered is not null then p_excerpt end, p_error, p_next_attempt_at);
  update webhook_deliveries
  set state = case when p_next_attempt_at is null then 'failed' else 'pending' end, attempts = attempts + 1,
      schedule_step = p_step, next_attempt_at = coalesce(p_next_attempt_at, next_attempt_at), lease_until = null,
      last_status_code = p_status_code, last_error = coalesce(p_error, 'HTTP ' || p_status_code),
      updated_at = now()
  where id = p_delivery_id;
  -- The wake-up commits with the attempt's record: a crash here cannot strand a pending delivery.
  if p_next_attempt_at is not null then
    perform mailroom_enqueue_webhook_deliver(array[p_endpoint_id], array[jsonb_build_array(p_stream)],
                                             array[p_next_attempt_at], array['webhook']);
  end if;
end
$$;
