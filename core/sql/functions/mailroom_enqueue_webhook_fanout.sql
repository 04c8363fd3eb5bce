-- The one writer of `webhook_fanout` jobs (payload: WebhookFanoutPayload in core/src/jobs): one job for the
-- events of one outbox write, called by mailroom_emit_webhook_events only.
create or replace function mailroom_enqueue_webhook_fanout(p_event_ids uuid[]) returns void language plpgsql as $$
begin
  if cardinality(p_event_ids) > 0 then
    perform graphile_worker.add_job('webhook_fanout', json_build_object('eventIds', p_event_ids),
                                    max_attempts => 25);
  end if;
end
$$;
