-- The email lifecycle, the state machine of one email from accept to its last attempt, in one file because
-- its functions are only read together (ADR 0003). TypeScript decides (recipients, outcome, retry time, which
-- emails a revocation fails); these functions write what was decided, set-based. With the insert of accept.ts
-- they are the only writers of `emails` and `email_events`, with mailroom_release_held_emails (held mail,
-- released on resume) and the one writer of `deliver` jobs, mailroom_enqueue_deliver, each in its own file.
--
--   accept (accept.ts) ─→ queued|scheduled ─→ mailroom_claim_emails ─→ sending ─→ mailroom_record_attempts
--     ─→ delivered | deferred (retry: mailroom_enqueue_deliver) | bounced | failed
--   (a paused account's mail is held by the claim until mailroom_release_held_emails)
--   mailroom_cancel_email, mailroom_reschedule_email, mailroom_fail_emails (revocation) and
--   mailroom_set_recipient_results (a later bounce report) change an email outside that path.
-- Every transition appends its timeline event through mailroom_append_email_events (which counts it too).

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
  perform mailroom_count_email_stats(p_email_ids, p_states, p_details); -- the overview's counters (ADR 0060)
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

-- Takes emails for their SMTP handover, set-based: concurrent deliveries share one call (one row per email
-- asked for, with its id). The emails' keys are locked first (share, in key order), then the emails (in id
-- order): revocation locks a key and then its emails, and two claims lock in the same orders, so no cycle
-- can form. Under those locks each email's key is re-checked: a revoke that committed first fails the email
-- here; a later one waits and then finds it `sending`, i.e. gone. Suppressed recipients are dropped; if none
-- is left the email fails with `suppressed`. A `sending` email is claimed again: its worker died
-- mid-handover. An email asked for twice in one call is claimed once; the repeat is skipped. Outcomes:
-- ('send', null, <has attachments>, <the email, now sending>), ('skip', <status|missing|rescheduled|held>, …),
-- ('failed', <reason>, …). Plans are generic and index-only (ADR 0008): made once per session, they must
-- not keep a scan chosen while the tables were small.
drop function if exists mailroom_claim_email(uuid, timestamptz, uuid);
create or replace function mailroom_claim_emails(p_email_ids uuid[], p_nows timestamptz[], p_event_ids uuid[])
returns table (email_id uuid, outcome text, reason text, has_attachments boolean, email emails)
language plpgsql set plan_cache_mode = force_generic_plan set enable_seqscan = off as $$
declare
  v_locked emails[];
  v_ids uuid[];
  v_outcomes text[];
  v_reasons text[];
  v_claimed emails[];
  v_changed_ids uuid[];
  v_event_ids uuid[];
  v_accounts text[];
  v_states text[];
  v_details jsonb[];
begin
  perform 1 from api_keys k
  where k.key_id = any(array(select e.api_key_id from emails e where e.id = any(p_email_ids)))
  order by k.key_id for share;
  -- The accounts next (share, in name order): a resume updates the account's row and then releases its held
  -- mail, so an email this claim holds is either seen by that release or claimed after the resume.
  perform 1 from accounts a
  where a.account = any(array(select e.account from emails e where e.id = any(p_email_ids)))
  order by a.account for share;
  v_locked := array(select e from emails e where e.id = any(p_email_ids) order by e.id for update);
  with asked as (
    select distinct on (u.id) u.id, u.at, u.event_id
    from unnest(p_email_ids, p_nows, p_event_ids) with ordinality as u(id, at, event_id, n)
    order by u.id, u.n
  ),
  decided as (
    select l.id, a.event_id, l.account, s.suppressed, s.suppressions, w.recipients,
      case when l.status not in ('scheduled', 'queued', 'deferred', 'sending') then l.status
           -- A job that was already running when its email was rescheduled: the replacement job sends it.
           when l.status = 'scheduled' and l.scheduled_at > a.at + interval '1 second' then 'rescheduled'
           -- A paused account's mail waits, marked held, until a resume gives it a new job (issue 31).
           when acc.sending_status = 'paused' then 'held'
      end as skip,
      case when k.revoked_at is not null then 'api_key_revoked'
           when k.expires_at <= a.at then 'api_key_expired'
           when cardinality(w.recipients) = 0 then 'suppressed'
      end as failure
    from unnest(v_locked) as l
    join asked a on a.id = l.id
    join api_keys k on k.key_id = l.api_key_id
    left join accounts acc on acc.account = l.account
    -- Recipients still to be served: all of them on a first attempt, as accept decided them (bare,
    -- lower-cased, each once, in header order). Why and since when each dropped one is suppressed goes to
    -- the timeline (the log shows it).
    cross join lateral (
      select coalesce(array_agg(x.address), '{}') as suppressed,
             coalesce(jsonb_agg(jsonb_build_object('address', x.address, 'reason', x.reason, 'since', x.created_at)),
                      '[]') as suppressions
      from suppressions x where x.account = l.account and x.address = any(coalesce(l.pending_recipients, '{}'))
    ) as s
    cross join lateral (
      select array(select t.r from unnest(coalesce(l.pending_recipients, '{}')) with ordinality as t(r, n)
                   where t.r <> all(s.suppressed) order by t.n) as recipients
    ) as w
  ),
  changed as (
    update emails e
    set status = case when d.failure is null then 'sending' else 'failed' end,
        failure_reason = coalesce(d.failure, e.failure_reason),
        attempts = e.attempts + case when d.failure is null then 1 else 0 end,
        pending_recipients = case when d.failure is null then d.recipients else '{}' end,
        updated_at = now()
    -- `e.id = any(…)` too: the plan, generic and made once, probes the emails asked for (ADR 0008).
    from decided d
    where e.id = d.id and e.id = any(p_email_ids) and d.skip is null
    returning e.id, e
  ),
  held as (
    update emails e set held_at = coalesce(e.held_at, now())
    from decided d
    where e.id = d.id and e.id = any(p_email_ids) and d.skip = 'held'
  )
  select array_agg(d.id order by d.id),
         array_agg(case when d.skip is not null then 'skip' when d.failure is not null then 'failed' else 'send' end
                   order by d.id),
         array_agg(coalesce(d.skip, d.failure) order by d.id),
         array_agg(c.e order by d.id),
         array_agg(d.id order by d.id) filter (where d.skip is null),
         array_agg(d.event_id order by d.id) filter (where d.skip is null),
         array_agg(d.account order by d.id) filter (where d.skip is null),
         array_agg(case when d.failure is null then 'sending' else 'failed' end order by d.id)
           filter (where d.skip is null),
         array_agg(
           case when d.failure is null then
                  jsonb_build_object('attempt', (c.e).attempts)
                  || case when cardinality(d.suppressed) > 0
                          then jsonb_build_object('suppressed', d.suppressed, 'suppressions', d.suppressions)
                          else '{}'::jsonb end
                else jsonb_build_object('reason', d.failure)
                  || case when d.failure = 'suppressed' then jsonb_build_object('suppressions', d.suppressions)
                          else '{}'::jsonb end
           end order by d.id) filter (where d.skip is null)
  into v_ids, v_outcomes, v_reasons, v_claimed, v_changed_ids, v_event_ids, v_accounts, v_states, v_details
  from decided d left join changed c on c.id = d.id;
  if cardinality(v_event_ids) > 0 then
    perform mailroom_append_email_events(v_changed_ids, v_event_ids, v_accounts, v_states, v_details,
                                         array_fill(null::jsonb, array[cardinality(v_event_ids)]));
  end if;
  return query
  select u.id,
         case when u.repeat then 'skip' else coalesce(v_outcomes[x.i], 'skip') end,
         case when x.i is null then 'missing'
              when u.repeat then case v_outcomes[x.i] when 'send' then 'sending' when 'failed' then 'failed'
                                 else v_reasons[x.i] end
              else v_reasons[x.i] end,
         -- A probe per email (`limit 1`): an `exists` may be planned as one hashed pass over every attachment.
         coalesce(not u.repeat and v_outcomes[x.i] = 'send'
                  and (select true from email_attachments a where a.email_id = u.id limit 1), false),
         case when not u.repeat and v_outcomes[x.i] = 'send' then v_claimed[x.i] end
  from (select v.id, v.n, row_number() over (partition by v.id order by v.n) > 1 as repeat
        from unnest(p_email_ids) with ordinality as v(id, n)) as u
  left join unnest(v_ids) with ordinality as x(id, i) on x.id = u.id
  order by u.n;
end
$$;

-- Records attempts whose outcomes the worker decided, set-based: concurrent deliveries share one call.
-- `p_attempts` holds one object per attempt: emailId, status, reason, response, results (per recipient),
-- pending, bounced and bouncedDetail (arrays), retryAt, eventId, detail and trace. Each email gets its new
-- state; the hard bounces join the account's suppression list (through its one writer,
-- mailroom_add_suppressions; of emails bouncing the same address, the first in id order is its source); a
-- deferred email gets its next attempt (same job key); every transition is appended to the timeline.
-- `trace` is the attempt's trace context: the retry and the webhook events of the outcome continue it. The
-- emails are locked in id order first, as the claim locks them.
drop function if exists mailroom_record_attempt(uuid, text, text, text, jsonb, text[], text[], text[], timestamptz, uuid, jsonb);
drop function if exists mailroom_record_attempt(uuid, text, text, text, jsonb, text[], text[], text[], timestamptz, uuid, jsonb, jsonb);
create or replace function mailroom_record_attempts(p_attempts jsonb) returns void
language plpgsql set plan_cache_mode = force_generic_plan set enable_seqscan = off as $$
declare
  v_ids uuid[] := array(select (a->>'emailId')::uuid from jsonb_array_elements(p_attempts) as a);
  v_changed uuid[];
  v_accounts text[];
  v_statuses text[];
  v_event_ids uuid[];
  v_details jsonb[];
  v_traces jsonb[];
  v_retries uuid[];
  v_retry_at timestamptz[];
  v_retry_traces jsonb[];
  v_bounce_accounts text[];
  v_bounced text[];
  v_bounce_details text[];
  v_bounce_emails uuid[];
begin
  perform 1 from emails where id = any(v_ids) order by id for update;
  with attempt as (
    select (a->>'emailId')::uuid as id, a->>'status' as status, a->>'reason' as reason, a->>'response' as response,
           a->'results' as results, array(select jsonb_array_elements_text(a->'pending')) as pending,
           (a->>'retryAt')::timestamptz as retry_at, (a->>'eventId')::uuid as event_id, a->'detail' as detail,
           a->'trace' as trace, a->'bounced' as bounced, a->'bouncedDetail' as bounced_detail
    from jsonb_array_elements(p_attempts) as a
  ),
  changed as (
    update emails e
    set status = a.status, failure_reason = a.reason, last_smtp_response = a.response,
        recipient_results = a.results, pending_recipients = a.pending, updated_at = now()
    -- `e.id = any(…)` too: the plan, generic and made once, probes the emails asked for (ADR 0008).
    from attempt a where e.id = a.id and e.id = any(v_ids)
    returning e.id, e.account
  ),
  recorded as (
    select array_agg(a.id order by a.id) as ids, array_agg(c.account order by a.id) as accounts,
           array_agg(a.status order by a.id) as statuses, array_agg(a.event_id order by a.id) as event_ids,
           array_agg(a.detail order by a.id) as details, array_agg(a.trace order by a.id) as traces,
           array_agg(a.id order by a.id) filter (where a.status = 'deferred') as retries,
           array_agg(a.retry_at order by a.id) filter (where a.status = 'deferred') as retry_at,
           array_agg(a.trace order by a.id) filter (where a.status = 'deferred') as retry_traces
    from attempt a join changed c on c.id = a.id
  ),
  bounces as (
    select array_agg(c.account order by c.id, b.n) as accounts, array_agg(b.address order by c.id, b.n) as addresses,
           array_agg(a.bounced_detail->>(b.n::int - 1) order by c.id, b.n) as details,
           array_agg(c.id order by c.id, b.n) as email_ids
    from attempt a join changed c on c.id = a.id
    cross join lateral jsonb_array_elements_text(a.bounced) with ordinality as b(address, n)
  )
  select r.ids, r.accounts, r.statuses, r.event_ids, r.details, r.traces, r.retries, r.retry_at, r.retry_traces,
         b.accounts, b.addresses, b.details, b.email_ids
  into v_changed, v_accounts, v_statuses, v_event_ids, v_details, v_traces, v_retries, v_retry_at, v_retry_traces,
       v_bounce_accounts, v_bounced, v_bounce_details, v_bounce_emails
  from recorded r, bounces b;
  if cardinality(v_bounced) > 0 then
    perform mailroom_add_suppressions(v_bounce_accounts, v_bounced,
      array_fill('hard_bounce'::text, array[cardinality(v_bounced)]), v_bounce_details, v_bounce_emails);
  end if;
  if cardinality(v_retries) > 0 then
    perform mailroom_enqueue_deliver(v_retries, v_retry_at, v_retry_traces,
                                     array_fill(true, array[cardinality(v_retries)]));
  end if;
  if cardinality(v_changed) > 0 then
    perform mailroom_append_email_events(v_changed, v_event_ids, v_accounts, v_statuses, v_details, v_traces);
  end if;
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
