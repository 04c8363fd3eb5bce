-- The email lifecycle, the state machine of one email from accept to its last attempt, in one file because
-- its functions are only read together (ADR 0003). TypeScript decides (recipients, outcome, retry time,
-- which emails a revocation fails); these functions write what was decided, set-based. With the insert of
-- core/src/emails/accept.ts they are the only writers of `emails` and `email_events`.
--
--   accept (accept.ts) ─→ queued|scheduled ─→ mailroom_claim_emails ─→ sending ─→ mailroom_record_attempts
--     ─→ delivered | deferred (retry: mailroom_enqueue_deliver) | bounced | failed
--   mailroom_cancel_email, mailroom_reschedule_email, mailroom_fail_emails (revocation) and
--   mailroom_set_recipient_results (a later bounce report) change an email outside that path.
-- Every transition appends its timeline event through mailroom_append_email_events.

-- The one writer of `deliver` jobs (payload: DeliverPayload in core/src/jobs): the accept statement, the
-- record of a deferred attempt and a reschedule all add them here. A keyed job (`deliver:<email id>`:
-- scheduled sends and retries, which cancel removes and reschedule moves) replaces the email's waiting one;
-- unkeyed jobs cost graphile-worker no key pass. Inputs are parallel arrays, in the order to add.
create or replace function mailroom_enqueue_deliver(
  p_email_ids uuid[], p_run_at timestamptz[], p_traces jsonb[], p_keyed boolean[]
) returns void language plpgsql set plan_cache_mode = force_generic_plan as $$
begin
  if cardinality(p_email_ids) > 0 then
    perform graphile_worker.add_jobs(array(
      select row('deliver',
                 case when u.trace is null then json_build_object('emailId', u.id)
                      else json_build_object('emailId', u.id, 'trace', u.trace) end,
                 null, u.run_at, null, case when u.keyed then 'deliver:' || u.id end, null, null
                )::graphile_worker.job_spec
      from unnest(p_email_ids, p_run_at, p_traces, p_keyed) with ordinality as u(id, run_at, trace, keyed, n)
      order by u.n
    ));
  end if;
end
$$;

-- The data of an `email.*` webhook event. One shape everywhere (accept, delivery, cancel, revocation).
create or replace function mailroom_email_event_data(
  p_id uuid, p_from text, p_to text[], p_subject text, p_tags jsonb, p_category text
) returns jsonb language sql immutable parallel safe as $$
  select jsonb_build_object('emailId', p_id, 'from', p_from, 'to', p_to, 'subject', p_subject, 'tags', p_tags,
                            'category', p_category)
$$;

-- The one writer of `email_events`: appends one timeline event per email (its account, state, detail and
-- trace context: parallel arrays; null details, as the accept's, mean `{}`) and, for the states that are
-- webhook events, has the matching `email.<state>` outbox events written (ids given, in order;
-- mailroom_emit_webhook_events), in the caller's transaction. The accept statement calls it too: the emails
-- it inserted are visible here (a volatile function sees the changes of the statement that calls it). The
-- caller gives each email's account, so an account without webhooks costs no read of `emails`.
drop function if exists mailroom_append_email_events(uuid[], uuid[], text, jsonb);
drop function if exists mailroom_append_email_events(uuid[], uuid[], text, jsonb, jsonb);
create or replace function mailroom_append_email_events(
  p_email_ids uuid[], p_event_ids uuid[], p_accounts text[], p_states text[], p_details jsonb[], p_traces jsonb[]
) returns void language plpgsql
-- Generic plans: with array parameters the planner keeps choosing custom plans, i.e. plans every call.
set plan_cache_mode = force_generic_plan as $$
begin
  insert into email_events (email_id, type, detail)
  select u.id, u.state, coalesce(u.detail, '{}') from unnest(p_email_ids, p_states, p_details) as u(id, state, detail);
  -- `sending` and `rescheduled` are internal steps, and `delayed` (a late soft bounce) is news for the
  -- timeline only: none is a webhook event. `complained` is not a state but is one (issue 17). Most
  -- accounts have no endpoint: an index probe per account and state answers that.
  if not exists (select 1 from (select distinct a, s from unnest(p_accounts, p_states) as u(a, s)) as d
                 where d.s in ('scheduled', 'queued', 'delivered', 'deferred', 'bounced', 'failed', 'canceled',
                               'complained')
                   and mailroom_endpoint_subscribed(d.a, 'email.' || d.s)) then
    return;
  end if;
  perform mailroom_emit_webhook_events(
    array_agg(u.event_id order by u.n), array_agg(e.account order by u.n),
    array_agg('email.' || u.state order by u.n), array_agg('email:' || e.id order by u.n),
    array_agg(mailroom_email_event_data(e.id, e.from_header, e.to_addresses, e.subject, e.tags, e.category)
                || coalesce(u.detail, '{}') order by u.n),
    array_agg(u.trace order by u.n))
  from unnest(p_email_ids, p_event_ids, p_states, p_details, p_traces)
         with ordinality as u(email_id, event_id, state, detail, trace, n)
  -- One primary-key probe per email: a join would let the generic plan, made once per session, keep a
  -- hash join over a seq scan of `emails` chosen while the table was small (`offset 0` keeps it a probe).
  cross join lateral (select * from emails where id = u.email_id offset 0) as e
  where u.state in ('scheduled', 'queued', 'delivered', 'deferred', 'bounced', 'failed', 'canceled',
                    'complained');
end
$$;

-- Takes one email for its SMTP handover (called by mailroom_claim_emails). Locks its key (share) and then
-- the email — revocation locks in the same order — and re-checks the key: a revoke that committed first
-- fails the email here; a later one waits and then finds it `sending`, i.e. gone. Suppressed recipients are
-- dropped; if none is left the email fails with `suppressed`. A `sending` email is claimed again: its worker
-- died mid-handover. Outcomes:
-- ('send', null, <has attachments>, <the email, now sending>), ('skip', <status|missing|rescheduled>, …),
-- ('failed', <reason>, …).
create or replace function mailroom_claim_email(p_email_id uuid, p_now timestamptz, p_event_id uuid)
returns table (outcome text, reason text, has_attachments boolean, email emails)
language plpgsql set plan_cache_mode = force_generic_plan as $$
declare
  v_key api_keys;
  v_email emails;
  v_reason text;
  v_wanted text[];
  v_suppressed text[];
  -- Why and since when each dropped recipient is suppressed, for the timeline (the log shows it).
  v_suppressions jsonb;
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
    -- Recipients still to be served: all of them on a first attempt, as accept decided them (bare,
    -- lower-cased, each once, in header order).
    v_wanted := coalesce(v_email.pending_recipients, '{}');
    select coalesce(array_agg(s.address), '{}'),
           coalesce(jsonb_agg(jsonb_build_object('address', s.address, 'reason', s.reason, 'since', s.created_at)),
                    '[]')
    into v_suppressed, v_suppressions
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
    perform mailroom_append_email_events(array[p_email_id], array[p_event_id], array[v_email.account], array['failed'],
      array[jsonb_build_object('reason', v_reason)
        || case when v_reason = 'suppressed' then jsonb_build_object('suppressions', v_suppressions)
                else '{}'::jsonb end], array[null::jsonb]);
    return query select 'failed', v_reason, false, null::emails;
    return;
  end if;
  update emails set status = 'sending', attempts = attempts + 1, pending_recipients = v_recipients,
                    updated_at = now()
  where id = p_email_id returning * into v_email;
  perform mailroom_append_email_events(array[p_email_id], array[p_event_id], array[v_email.account], array['sending'],
    array[jsonb_build_object('attempt', v_email.attempts)
      || case when cardinality(v_suppressed) > 0
              then jsonb_build_object('suppressed', v_suppressed, 'suppressions', v_suppressions)
              else '{}'::jsonb end], array[null::jsonb]);
  return query select 'send', null::text,
    exists (select 1 from email_attachments a where a.email_id = p_email_id), v_email;
end
$$;

-- Claims several emails in one statement (concurrent deliveries share it): one by one in id order, so two
-- statements claiming overlapping emails lock them in the same order. One row per email, with its id.
create or replace function mailroom_claim_emails(p_email_ids uuid[], p_nows timestamptz[], p_event_ids uuid[])
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

-- Records one attempt (called by mailroom_record_attempts) whose outcome the worker decided (status, reason,
-- per-recipient results, pending recipients, hard bounces, retry time): the hard bounces join the account's
-- suppression list (through its one writer, mailroom_add_suppressions), a deferred email gets its next
-- attempt scheduled (same job key), and the transition is appended to the timeline. `p_trace` is the
-- attempt's trace context: the retry and the webhook events of the outcome continue it.
drop function if exists mailroom_record_attempt(uuid, text, text, text, jsonb, text[], text[], text[], timestamptz, uuid, jsonb);
create or replace function mailroom_record_attempt(
  p_email_id uuid, p_status text, p_reason text, p_response text, p_results jsonb, p_pending text[],
  p_bounced text[], p_bounced_detail text[], p_retry_at timestamptz, p_event_id uuid, p_detail jsonb,
  p_trace jsonb
) returns void language plpgsql set plan_cache_mode = force_generic_plan as $$
declare
  v_account text;
begin
  update emails set status = p_status, failure_reason = p_reason, last_smtp_response = p_response,
                    recipient_results = p_results, pending_recipients = p_pending, updated_at = now()
  where id = p_email_id returning account into v_account;
  if cardinality(p_bounced) > 0 then
    perform mailroom_add_suppressions(array_fill(v_account, array[cardinality(p_bounced)]), p_bounced,
      array_fill('hard_bounce'::text, array[cardinality(p_bounced)]), p_bounced_detail,
      array_fill(p_email_id, array[cardinality(p_bounced)]));
  end if;
  if p_status = 'deferred' then
    perform mailroom_enqueue_deliver(array[p_email_id], array[p_retry_at], array[p_trace], array[true]);
  end if;
  perform mailroom_append_email_events(array[p_email_id], array[p_event_id], array[v_account], array[p_status],
                                       array[p_detail], array[p_trace]);
end
$$;

-- Records several attempts in one statement (concurrent deliveries share it), in email id order; `p_attempts`
-- holds one object per attempt with mailroom_record_attempt's arguments by name.
create or replace function mailroom_record_attempts(p_attempts jsonb) returns void language plpgsql as $$
declare
  a jsonb;
begin
  for a in select value from jsonb_array_elements(p_attempts) order by value->>'emailId' loop
    perform mailroom_record_attempt(
      (a->>'emailId')::uuid, a->>'status', a->>'reason', a->>'response', a->'results',
      array(select jsonb_array_elements_text(a->'pending')),
      array(select jsonb_array_elements_text(a->'bounced')),
      array(select jsonb_array_elements_text(a->'bouncedDetail')),
      (a->>'retryAt')::timestamptz, (a->>'eventId')::uuid, a->'detail', a->'trace');
  end loop;
end
$$;

-- Cancels an email that has not left (log.ts decided it may), with its `canceled` event.
create or replace function mailroom_cancel_email(p_id uuid, p_event_id uuid) returns setof emails
language plpgsql as $$
declare
  v_email emails;
begin
  update emails set status = 'canceled', updated_at = now() where id = p_id returning * into v_email;
  perform mailroom_append_email_events(array[p_id], array[p_event_id], array[v_email.account], array['canceled'],
                                       array['{}'::jsonb], array[null::jsonb]);
  return next v_email;
end
$$;

-- Moves an email that has not left to a new send time (log.ts decided it may, and replaces its job), with
-- its `rescheduled` event (`p_detail`).
create or replace function mailroom_reschedule_email(p_id uuid, p_at timestamptz, p_event_id uuid, p_detail jsonb)
returns setof emails language plpgsql as $$
declare
  v_email emails;
begin
  update emails set status = 'scheduled', scheduled_at = p_at, updated_at = now() where id = p_id
  returning * into v_email;
  perform mailroom_append_email_events(array[p_id], array[p_event_id], array[v_email.account],
                                       array['rescheduled'], array[p_detail], array[null::jsonb]);
  return next v_email;
end
$$;

-- Fails the given emails of one account (a revocation chose them: its key's emails that have not left),
-- with `failed` events that carry the reason.
create or replace function mailroom_fail_emails(p_account text, p_ids uuid[], p_event_ids uuid[], p_reason text)
returns void language plpgsql as $$
declare
  n int := cardinality(p_ids);
begin
  update emails set status = 'failed', failure_reason = p_reason, updated_at = now() where id = any(p_ids);
  perform mailroom_append_email_events(p_ids, p_event_ids, array_fill(p_account, array[n]),
    array_fill('failed'::text, array[n]), array_fill(jsonb_build_object('reason', p_reason), array[n]),
    array_fill(null::jsonb, array[n]));
end
$$;

-- A report about an email that left (core/src/emails/reported.ts decided the per-recipient results, the
-- status and the response to show); the report's own timeline event is its caller's.
create or replace function mailroom_set_recipient_results(p_id uuid, p_results jsonb, p_status text,
                                                          p_response text)
returns void language plpgsql as $$
begin
  update emails set recipient_results = p_results, status = p_status, last_smtp_response = p_response,
                    updated_at = now()
  where id = p_id;
end
$$;
