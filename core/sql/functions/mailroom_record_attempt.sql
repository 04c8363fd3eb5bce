-- Records one attempt (called by mailroom_record_attempts) whose outcome the worker decided (status, reason,
-- per-recipient results, pending recipients, hard bounces, retry time): the hard bounces join the account's
-- suppression list, a deferred email gets its next attempt scheduled (same job key), and the transition is
-- appended to the timeline. `p_trace` is the attempt's trace context: the retry and the webhook events of
-- the outcome continue it.
drop function if exists mailroom_record_attempt(uuid, text, text, text, jsonb, text[], text[], text[], timestamptz, uuid, jsonb);
create or replace function mailroom_record_attempt(
  p_email_id uuid, p_status text, p_reason text, p_response text, p_results jsonb, p_pending text[],
  p_bounced text[], p_bounced_detail text[], p_retry_at timestamptz, p_event_id uuid, p_detail jsonb,
  p_trace jsonb
) returns void language plpgsql set plan_cache_mode = force_generic_plan as $$
begin
  insert into suppressions (account, address, reason, detail, source_email_id)
  select e.account, lower(b.address), 'hard_bounce', b.detail, p_email_id
  from emails e, unnest(p_bounced, p_bounced_detail) as b(address, detail)
  where e.id = p_email_id
  on conflict (account, address) do nothing;
  update emails set status = p_status, failure_reason = p_reason, last_smtp_response = p_response,
                    recipient_results = p_results, pending_recipients = p_pending, updated_at = now()
  where id = p_email_id;
  if p_status = 'deferred' then
    perform mailroom_enqueue_deliver(array[p_email_id], array[p_retry_at], array[p_trace], array[true]);
  end if;
  perform mailroom_append_email_events(array[p_email_id], array[p_event_id], p_status, p_detail, p_trace);
end
$$;
