-- Up Migration
-- Delivery's hot path in one round trip each (issue 4's benchmark: a round trip to Postgres costs the worker
-- more CPU than the statement costs the server). `mailroom_claim_email` and `mailroom_record_attempt` were
-- six to eight statements each, in a transaction driven from the worker. Also the single definition of what
-- an `email.*` webhook event carries and of "some endpoint subscribes", used by every writer of the outbox.

-- The data of an `email.*` webhook event. One shape everywhere (accept, delivery, cancel, revocation).
create function mailroom_email_event_data(
  p_id uuid, p_from text, p_to text[], p_subject text, p_tags jsonb, p_category text
) returns jsonb language sql immutable parallel safe as $$
  select jsonb_build_object('emailId', p_id, 'from', p_from, 'to', p_to, 'subject', p_subject, 'tags', p_tags,
                            'category', p_category)
$$;

-- Some enabled endpoint of the account subscribes to the event type: events are written only then, so an
-- account without webhooks pays nothing.
create function mailroom_endpoint_subscribed(p_account text, p_type text)
returns boolean language sql stable parallel safe as $$
  select exists (select 1 from webhook_endpoints w
    where w.account = p_account and w.enabled and (cardinality(w.event_types) = 0 or p_type = any(w.event_types)))
$$;

-- Appends one timeline event per email and, for the states that are webhook events, writes the matching
-- `email.<state>` outbox events (ids given, in order) with one fan-out job, in the caller's transaction.
create function mailroom_append_email_events(
  p_email_ids uuid[], p_event_ids uuid[], p_state text, p_detail jsonb
) returns void language plpgsql
-- Generic plans: with array parameters the planner keeps choosing custom plans, i.e. plans every call.
set plan_cache_mode = force_generic_plan as $$
declare
  v_type text := 'email.' || p_state;
  v_written uuid[];
begin
  insert into email_events (email_id, type, detail) select unnest(p_email_ids), p_state, p_detail;
  -- `sending` and `rescheduled` are internal steps, not webhook events.
  if p_state not in ('scheduled', 'queued', 'delivered', 'deferred', 'bounced', 'failed', 'canceled') then
    return;
  end if;
  -- Most accounts have no endpoint: two index probes answer that before the outbox statement is run.
  if not exists (select 1 from emails e where e.id = any(p_email_ids)
                 and mailroom_endpoint_subscribed(e.account, v_type)) then
    return;
  end if;
  with written as (
    insert into webhook_events (id, account, type, stream, data)
    select u.event_id, e.account, v_type, 'email:' || e.id,
           mailroom_email_event_data(e.id, e.from_header, e.to_addresses, e.subject, e.tags, e.category)
             || p_detail
    from unnest(p_email_ids, p_event_ids) with ordinality as u(email_id, event_id, n)
    join emails e on e.id = u.email_id
    where mailroom_endpoint_subscribed(e.account, v_type)
    order by u.n
    returning id
  )
  select array_agg(id) into v_written from written;
  if v_written is not null then
    perform graphile_worker.add_job('webhook_fanout', json_build_object('eventIds', v_written),
                                    max_attempts => 25);
  end if;
end
$$;

-- Takes one email for its SMTP handover (called by mailroom_claim_emails). Locks its key (share) and then
-- the email — revocation locks in the same order — and re-checks the key: a revoke that committed first fails the email here; a later one waits
-- and then finds it `sending`, i.e. gone. Suppressed recipients are dropped; if none is left the email fails
-- with `suppressed`. A `sending` email is claimed again: its worker died mid-handover. Outcomes:
-- ('send', null, <has attachments>, <the email, now sending>), ('skip', <status|missing|rescheduled>, …),
-- ('failed', <reason>, …).
create function mailroom_claim_email(p_email_id uuid, p_now timestamptz, p_event_id uuid)
returns table (outcome text, reason text, has_attachments boolean, email emails)
language plpgsql set plan_cache_mode = force_generic_plan as $$
declare
  v_key api_keys;
  v_email emails;
  v_reason text;
  v_wanted text[];
  v_suppressed text[];
  v_recipients text[];
begin
  select k.* into v_key from emails e join api_keys k on k.key_id = e.api_key_id where e.id = p_email_id
  for share of k;
  if not found then
    return query select 'skip', 'missing', false, null::emails;
    return;
  end if;
  select * into v_email from emails where id = p_email_id for update;
  if not found then
    return query select 'skip', 'missing', false, null::emails;
    return;
  end if;
  if v_email.status not in ('scheduled', 'queued', 'deferred', 'sending') then
    return query select 'skip', v_email.status, false, null::emails;
    return;
  end if;
  -- A job that was already running when its email was rescheduled: the replacement job sends it later.
  if v_email.status = 'scheduled' and v_email.scheduled_at > p_now + interval '1 second' then
    return query select 'skip', 'rescheduled', false, null::emails;
    return;
  end if;
  if v_key.revoked_at is not null or v_key.expires_at <= p_now then
    v_reason := case when v_key.revoked_at is not null then 'api_key_revoked' else 'api_key_expired' end;
  else
    -- Recipients still to be served (all of them on a first attempt), bare and lower-cased, first-seen order.
    select coalesce(array_agg(r order by first_seen), '{}') into v_wanted from (
      select r, min(n) as first_seen
      from unnest(coalesce(v_email.pending_recipients,
                           array(select lower(coalesce(substring(a from '<([^<>]+)>$'), a))
                                 from unnest(v_email.to_addresses || v_email.cc_addresses
                                             || v_email.bcc_addresses) with ordinality as x(a, i)
                                 order by i)))
        with ordinality as t(r, n)
      group by r
    ) d;
    select coalesce(array_agg(s.address), '{}') into v_suppressed
    from suppressions s where s.account = v_email.account and s.address = any(v_wanted);
    v_recipients := array(select w from unnest(v_wanted) with ordinality as t(w, n)
                          where w <> all(v_suppressed) order by n);
    if cardinality(v_recipients) = 0 then
      v_reason := 'suppressed';
    end if;
  end if;
  if v_reason is not null then
    update emails set status = 'failed', failure_reason = v_reason, pending_recipients = '{}', updated_at = now()
    where id = p_email_id;
    perform mailroom_append_email_events(array[p_email_id], array[p_event_id], 'failed',
                                         jsonb_build_object('reason', v_reason));
    return query select 'failed', v_reason, false, null::emails;
    return;
  end if;
  update emails set status = 'sending', attempts = attempts + 1, pending_recipients = v_recipients,
                    updated_at = now()
  where id = p_email_id returning * into v_email;
  perform mailroom_append_email_events(array[p_email_id], array[p_event_id], 'sending',
    jsonb_build_object('attempt', v_email.attempts)
      || case when cardinality(v_suppressed) > 0 then jsonb_build_object('suppressed', v_suppressed)
              else '{}'::jsonb end);
  return query select 'send', null::text,
    exists (select 1 from email_attachments a where a.email_id = p_email_id), v_email;
end
$$;

-- Records one attempt (called by mailroom_record_attempts) whose outcome the worker decided (status, reason, per-recipient results, pending
-- recipients, hard bounces, retry time): the hard bounces join the account's suppression list, a deferred
-- email gets its next attempt scheduled (same job key), and the transition is appended to the timeline.
create function mailroom_record_attempt(
  p_email_id uuid, p_status text, p_reason text, p_response text, p_results jsonb, p_pending text[],
  p_bounced text[], p_bounced_detail text[], p_retry_at timestamptz, p_event_id uuid, p_detail jsonb
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
    perform graphile_worker.add_job('deliver', json_build_object('emailId', p_email_id), run_at := p_retry_at,
                                    job_key := 'deliver:' || p_email_id, job_key_mode := 'replace');
  end if;
  perform mailroom_append_email_events(array[p_email_id], array[p_event_id], p_status, p_detail);
end
$$;

-- Claims several emails in one statement (concurrent deliveries share it): one by one in id order, so two
-- statements claiming overlapping emails lock them in the same order. One row per email, with its id.
create function mailroom_claim_emails(p_email_ids uuid[], p_nows timestamptz[], p_event_ids uuid[])
returns table (email_id uuid, outcome text, reason text, has_attachments boolean, email emails)
language plpgsql as $$
declare
  i int;
begin
  for i in select u.i from unnest(p_email_ids) with ordinality as u(id, i) order by u.id loop
    return query select p_email_ids[i], c.outcome, c.reason, c.has_attachments, c.email
                 from mailroom_claim_email(p_email_ids[i], p_nows[i], p_event_ids[i]) c;
  end loop;
end
$$;

-- Records several attempts in one statement (concurrent deliveries share it), in email id order; `p_attempts`
-- holds one object per attempt with mailroom_record_attempt's arguments by name.
create function mailroom_record_attempts(p_attempts jsonb) returns void language plpgsql as $$
declare
  a jsonb;
begin
  for a in select value from jsonb_array_elements(p_attempts) order by value->>'emailId' loop
    perform mailroom_record_attempt(
      (a->>'emailId')::uuid, a->>'status', a->>'reason', a->>'response', a->'results',
      array(select jsonb_array_elements_text(a->'pending')),
      array(select jsonb_array_elements_text(a->'bounced')),
      array(select jsonb_array_elements_text(a->'bouncedDetail')),
      (a->>'retryAt')::timestamptz, (a->>'eventId')::uuid, a->'detail');
  end loop;
end
$$;
