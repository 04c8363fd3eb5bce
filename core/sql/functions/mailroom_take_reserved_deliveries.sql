-- The reserved delivery lane's fetch (ADR 0075): takes up to `p_slots` runnable jobs within their account's
-- fair share (`deliver_reserved`, and `deliver` below 100 turns: added while no reserved lane lived, or keyed),
-- in graphile-worker's order (priority, then run_at), locks them under `p_worker_id` as graphile-worker's own
-- fetch does (attempts + 1, locked_by, locked_at), and claims the emails of the unkeyed ones in the same
-- transaction (`mailroom_claim_emails`, one event id each from `p_event_ids`): one round trip and one commit
-- from a quiet account's accept to its SMTP handover, where graphile-worker's fetch and the claim took two of
-- each on a database a flood keeps busy. A keyed job (a scheduled send come due, a retry) is returned locked
-- and unclaimed: cancel and reschedule lock the email before its keyed job, so claiming it here, after
-- locking the job, could deadlock with them; the worker claims it after this commits, as for any other job.
-- Unkeyed jobs are never touched by anyone holding an email's lock. Reads only the front of
-- graphile-worker's `(priority, run_at)` index below the share: a flood's waiting jobs are never walked.
-- The worker completes a job by deleting it and fails one as graphile-worker does (worker/src/reserved-lane).
-- One row per job, in the order taken; the claim's columns are null for a keyed job.
-- Its first version also returned each job's max_attempts, which nothing read.
drop function if exists mailroom_take_reserved_deliveries(text, int, uuid[]);
create or replace function mailroom_take_reserved_deliveries(p_worker_id text, p_slots int, p_event_ids uuid[])
returns table (
  job_id bigint, job_attempts int, payload json,
  email_id uuid, outcome text, reason text, has_attachments boolean, email emails
)
language plpgsql set plan_cache_mode = force_generic_plan set enable_seqscan = off as $$
declare
  v_tasks int[];
  v_ids bigint[];
  v_attempts int[];
  v_payloads json[];
  v_keyed boolean[];
  v_claim_ids uuid[];
begin
  select array_agg(t.id) into v_tasks from graphile_worker._private_tasks t
  where t.identifier in ('deliver', 'deliver_reserved');
  if v_tasks is null or p_slots < 1 then
    return;
  end if;
  with picked as (
    select j.id from graphile_worker._private_jobs j
    where j.is_available and j.priority < 100 and j.run_at <= now() and j.task_id = any(v_tasks)
      and j.job_queue_id is null and (j.flags ?| array['over_fair_share']) is not true
    order by j.priority, j.run_at
    limit p_slots
    for update skip locked
  ), taken as (
    update graphile_worker._private_jobs j
    set attempts = j.attempts + 1, locked_by = p_worker_id, locked_at = now()
    from picked where j.id = picked.id
    returning j.id, j.attempts, j.payload, j.key is not null as keyed, j.priority, j.run_at
  )
  select array_agg(t.id order by t.priority, t.run_at, t.id),
         array_agg(t.attempts order by t.priority, t.run_at, t.id),
         array_agg(t.payload order by t.priority, t.run_at, t.id),
         array_agg(t.keyed order by t.priority, t.run_at, t.id)
  into v_ids, v_attempts, v_payloads, v_keyed
  from taken t;
  if v_ids is null then
    return;
  end if;
  v_claim_ids := array(select (u.p ->> 'emailId')::uuid from unnest(v_payloads, v_keyed) with ordinality as u(p, k, n)
                       where not u.k order by u.n);
  return query
  with jobs as (
    select u.id, u.attempts, u.p, u.k, u.n,
           -- The place of an unkeyed job among the claims.
           case when not u.k then row_number() over (partition by u.k order by u.n) end as c
    from unnest(v_ids, v_attempts, v_payloads, v_keyed) with ordinality as u(id, attempts, p, k, n)
  ), claims as (
    select c.email_id, c.outcome, c.reason, c.has_attachments, c.email, c.i
    from mailroom_claim_emails(v_claim_ids, array_fill(now(), array[cardinality(v_claim_ids)]),
                               p_event_ids[1:cardinality(v_claim_ids)])
           with ordinality as c(email_id, outcome, reason, has_attachments, email, i)
    where cardinality(v_claim_ids) > 0
  )
  select j.id, j.attempts, j.p, c.email_id, c.outcome, c.reason, c.has_attachments, c.email
  from jobs j left join claims c on c.i = j.c
  order by j.n;
end
$$;
