-- Some enabled endpoint of the account subscribes to the event type: events are written only then, so an
-- account without webhooks pays nothing.
create or replace function mailroom_endpoint_subscribed(p_account text, p_type text)
returns boolean language sql stable parallel safe as $$
  select exists (select 1 from webhook_endpoints w
    where w.account = p_account and w.enabled and (cardinality(w.event_types) = 0 or p_type = any(w.event_types)))
$$;
