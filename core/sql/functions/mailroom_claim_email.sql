-- Takes one email for its SMTP handover (called by mailroom_claim_emails). Locks its key (share) and then
-- the email — revocation locks in the same order — and re-checks the key: a revoke that committed first fails the email here; a later one waits
-- and then finds it `sending`, i.e. gone. Suppressed recipients are dropped; if none is left the email fails
-- with `suppressed`. A `sending` email is claimed again: its worker died mid-handover. Outcomes:
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
    perform mailroom_append_email_events(array[p_email_id], array[p_event_id], 'failed',
      jsonb_build_object('reason', v_reason)
        || case when v_reason = 'suppressed' then jsonb_build_object('suppressions', v_suppressions)
                else '{}'::jsonb end, null);
    return query select 'failed', v_reason, false, null::emails;
    return;
  end if;
  update emails set status = 'sending', attempts = attempts + 1, pending_recipients = v_recipients,
                    updated_at = now()
  where id = p_email_id returning * into v_email;
  perform mailroom_append_email_events(array[p_email_id], array[p_event_id], 'sending',
    jsonb_build_object('attempt', v_email.attempts)
      || case when cardinality(v_suppressed) > 0
              then jsonb_build_object('suppressed', v_suppressed, 'suppressions', v_suppressions)
              else '{}'::jsonb end, null);
  return query select 'send', null::text,
    exists (select 1 from email_attachments a where a.email_id = p_email_id), v_email;
end
$$;
