-- The one writer of `deliver` jobs (payload: DeliverPayload in core/src/jobs): the accept statement, the
-- record of a deferred attempt, a reschedule and a resume all add them here. A keyed job (`deliver:<email
-- id>`: scheduled sends, retries and released held mail, which cancel removes and reschedule moves)
-- replaces the email's waiting one; unkeyed jobs cost graphile-worker no key pass. Inputs are parallel
-- arrays, in the order to add.
--
-- Fair delivery (issue 31 item 3, ADR 0053): graphile-worker takes jobs by priority, then run_at. Each
-- job's priority is its account's lead (in turns of 10 ms, the fair rate of 100 emails per second per
-- account) over now, read from and added to the account's clock in `delivery_turns` (its one writer):
-- an account within the fair rate has no lead and its jobs come first; a flood's lead grows with what it
-- has queued, up to the highest priority (32767, some 5 minutes ahead), beyond which floods share the
-- back of the queue in order of arrival. Every job is still added; only the order changes. The emails'
-- accounts are read here (a primary-key probe each): the accept statement's own rows are visible to a
-- volatile function it calls. A clock held by a concurrent transaction is never waited for: that call
-- reads the clock as committed and leaves its jobs in `delivery_turn_credits` (also written only here),
-- which the clock's next holder adds. So no caller waits on a clock and no lock cycle can involve one.
--
-- The reserved delivery lane (ADR 0064): a job whose priority reaches one second of the fair rate (its
-- account is beyond its fair share) carries graphile-worker's flag `over_fair_share`, which the worker's
-- reserved lane forbids; so those few slots run only mail of accounts within their share, and a quiet
-- account's email never waits for a flood's deliveries to end. Same task, payload and handler: a worker of
-- any release runs every job (flags only keep jobs out of a runner that forbids them).
--
-- While a reserved lane is alive (a heartbeat row's `reserved_until` is fresh: worker/src/heartbeat.ts), a job
-- within the share that is not keyed (an accept's immediate send) is added as `deliver_reserved` instead (same
-- payload and handler, ADR 0074): the delivery lane does not list that task, so its local queue, whose
-- prefetch ignores flags, can no longer take a quiet account's email ahead of the reserved lane and leave it
-- behind the flood's deliveries. What the reserved lane has not taken within a moment, or at all once it is
-- gone, the delivery lanes' processes turn back into `deliver` (`mailroom_rescue_reserved_deliveries`); with no
-- live reserved lane (none deployed, all stopped, or only workers of an earlier release) every job is `deliver`.
create or replace function mailroom_enqueue_deliver(
  p_email_ids uuid[], p_run_at timestamptz[], p_traces jsonb[], p_keyed boolean[]
) returns void language plpgsql set plan_cache_mode = force_generic_plan set enable_seqscan = off as $$
declare
  c_turn constant interval := interval '10 milliseconds';
  -- An account's fair share: its jobs within one second of the fair rate (100 turns) ahead of now.
  c_share_turns constant int := 100;
  v_accounts text[];
  v_clock_accounts text[];
  v_starts timestamptz[];
  v_specs graphile_worker.job_spec[];
  v_within_share int;
  v_reserved_alive boolean;
begin
  if cardinality(p_email_ids) = 0 then
    return;
  end if;
  v_accounts := array(select (select e.account from emails e where e.id = u.id)
                      from unnest(p_email_ids) with ordinality as u(id, n) order by u.n);
  -- A first job of an account makes its clock (waiting only on a concurrent first job of the same account).
  insert into delivery_turns (account, next_at)
  select distinct a.account, '-infinity'::timestamptz from unnest(v_accounts) as a(account)
  where a.account is not null and not exists (select 1 from delivery_turns t where t.account = a.account)
  order by 1
  on conflict (account) do nothing;
  with per_account as (
    select a.account, count(*)::int as n from unnest(v_accounts) as a(account) where a.account is not null
    group by a.account
  ), mine as (
    -- The clocks no other transaction holds; the others are not waited for (see delivery_turn_credits).
    select t.account, t.next_at from delivery_turns t
    where t.account in (select p.account from per_account p)
    order by t.account for update skip locked
  ), folded as (
    delete from delivery_turn_credits c where c.account in (select m.account from mine m)
    returning c.account, c.jobs
  ), advanced as (
    update delivery_turns t
    set next_at = greatest(m.next_at, now()) + (p.n + coalesce(f.jobs, 0)) * c_turn
    from mine m
    join per_account p on p.account = m.account
    left join (select account, sum(jobs)::int as jobs from folded group by account) f on f.account = m.account
    where t.account = m.account
    returning t.account, t.next_at - p.n * c_turn as start_at
  ), credited as (
    insert into delivery_turn_credits (account, jobs)
    select p.account, p.n from per_account p where p.account not in (select m.account from mine m)
  )
  select array_agg(s.account), array_agg(s.start_at) into v_clock_accounts, v_starts
  from (
    select a.account, a.start_at from advanced a
    union all
    -- A clock another transaction holds: its committed time and the credits committed since.
    select p.account, greatest(t.next_at, now())
                      + coalesce((select sum(c.jobs) from delivery_turn_credits c where c.account = p.account), 0)
                        * c_turn
    from per_account p join delivery_turns t on t.account = p.account
    where p.account not in (select m.account from mine m)
  ) as s;
  v_reserved_alive := exists (select 1 from worker_heartbeats h where h.reserved_until > now());
  v_specs := array(
    select row(case when v_reserved_alive and not j.keyed and j.priority < c_share_turns
                    then 'deliver_reserved' else 'deliver' end,
               case when j.trace is null then json_build_object('emailId', j.id)
                    else json_build_object('emailId', j.id, 'trace', j.trace) end,
               null, j.run_at, null, case when j.keyed then 'deliver:' || j.id end, j.priority,
               -- Beyond the account's fair share: kept out of the reserved delivery lane (ADR 0064).
               case when j.priority >= c_share_turns then array['over_fair_share'] end
              )::graphile_worker.job_spec
    from (
      select u.id, u.trace, u.run_at, u.keyed, u.n,
             -- The account's lead over now, in turns, plus the job's place among its account's jobs here.
             case when c.start_at is null then 0
                  else least(32767, floor(extract(epoch from greatest(c.start_at - now(), interval '0'))
                                          / extract(epoch from c_turn))::bigint
                                    + row_number() over (partition by u.account order by u.n) - 1)::int
             end as priority
      from unnest(p_email_ids, p_run_at, p_traces, p_keyed, v_accounts)
             with ordinality as u(id, run_at, trace, keyed, account, n)
      left join unnest(v_clock_accounts, v_starts) as c(account, start_at) on c.account = u.account
    ) as j
    order by j.n
  );
  perform graphile_worker.add_jobs(v_specs);
  -- The reserved lane wakes only for jobs within their share (ADR 0064; core/src/jobs withinShareAnnounced).
  select count(*) into v_within_share from unnest(v_specs) as s where s.flags is null;
  if v_within_share > 0 then
    perform pg_notify('jobs:insert', json_build_object('count', 0, 'withinShare', v_within_share)::text);
  end if;
end
$$;
