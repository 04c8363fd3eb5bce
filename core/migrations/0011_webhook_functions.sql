-- Up Migration
-- Webhook delivery's hot path in few round trips (issue 5's benchmark: on a small machine a round trip to
-- Postgres costs the worker more CPU than the statement costs the server). Emitting events and fanning them
-- out were two statements and a transaction each; claiming and recording were one round trip per delivery.
-- These functions do each step in one call, and the claim and success record for many streams at once, so
-- concurrent deliveries share statements.

-- Fan-outs run as separate jobs and may commit out of order (graphile-worker fetches several jobs at once),
-- so an email's later event could get its delivery before an earlier one. Each event records when it was
-- fanned out; a claim does not hand out a head while an earlier event of its stream still waits for its
-- fan-out. Events written before this migration count as fanned out.
alter table webhook_events add column fanned_out_at timestamptz default now();
alter table webhook_events alter column fanned_out_at drop default;
create index webhook_events_unfanned on webhook_events (account, stream, seq) where fanned_out_at is null;

-- Writes outbox events (ids given, in order) that some enabled endpoint subscribes to, and adds one fan-out
-- job for them, in the caller's transaction. Returns the ids written, in the given order.
create function mailroom_emit_webhook_events(
  p_ids uuid[], p_accounts text[], p_types text[], p_streams text[], p_data jsonb[]
) returns uuid[] language plpgsql as $$
declare
  v_written uuid[];
begin
  -- `with ordinality` keeps the caller's order in the identity column, which orders deliveries per stream.
  with written as (
    insert into webhook_events (id, account, type, stream, data)
    select u.id, u.a, u.t, u.s, u.d
    from unnest(p_ids, p_accounts, p_types, p_streams, p_data) with ordinality as u(id, a, t, s, d, n)
    where mailroom_endpoint_subscribed(u.a, u.t)
    order by u.n
    returning id
  )
  select array_agg(u.id order by u.n) into v_written
  from unnest(p_ids) with ordinality as u(id, n) where u.id in (select id from written);
  if v_written is not null then
    perform graphile_worker.add_job('webhook_fanout', json_build_object('eventIds', v_written),
                                    max_attempts => 25);
  end if;
  return coalesce(v_written, '{}');
end
$$;

-- Turns events into deliveries, one per subscribed enabled endpoint of the event's account, and adds unkeyed
-- `webhook_deliver` jobs covering them: up to 100 streams of one endpoint per job, since one job per stream
-- would cap throughput at graphile-worker's jobs/s. A stream whose head waits for a retry is left alone by
-- the job (the head check in mailroom_webhook_claim_heads), so batching never lets a new event overtake an
-- older one. Repeating it is harmless: a delivery exists once per pair. Returns the deliveries created.
create function mailroom_webhook_fan_out(p_event_ids uuid[]) returns integer language plpgsql as $$
declare
  v_created integer;
  v_jobs graphile_worker.job_spec[];
begin
  update webhook_events set fanned_out_at = now() where id = any(p_event_ids) and fanned_out_at is null;
  with created as (
    insert into webhook_deliveries (endpoint_id, event_id, stream, event_seq)
    select p.id, v.id, v.stream, v.seq
    from webhook_events v
    join webhook_endpoints p on p.account = v.account and p.enabled
      and (cardinality(p.event_types) = 0 or v.type = any(p.event_types))
    where v.id = any(p_event_ids)
    order by v.seq
    on conflict (endpoint_id, event_id) do nothing
    returning endpoint_id, stream, event_seq
  ), streams as (
    select endpoint_id, stream,
           (row_number() over (partition by endpoint_id order by min(event_seq)) - 1) / 100 as chunk,
           min(event_seq) as first_seq
    from created group by endpoint_id, stream
  )
  select (select count(*) from created),
         array(select row('webhook_deliver',
                          json_build_object('endpointId', endpoint_id, 'streams', json_agg(stream order by first_seq)),
                          null, null, 25, null, null, null)::graphile_worker.job_spec
               from streams group by endpoint_id, chunk)
  into v_created, v_jobs;
  if cardinality(v_jobs) > 0 then
    perform graphile_worker.add_jobs(v_jobs);
  end if;
  return v_created;
end
$$;

-- One stream's answer to a claim: `deliver` (its head is leased to the caller, with what it takes to send
-- it), `idle` (nothing pending, or the endpoint is gone or disabled), `busy` (another worker holds the head)
-- or `wait` (the head is not due before `next_attempt_at`; its wake-up job is scheduled).
create type mailroom_webhook_claim as (
  n bigint,
  outcome text,
  delivery_id uuid,
  event_id uuid,
  attempts integer,
  schedule_step integer,
  next_attempt_at timestamptz,
  url text,
  event_type text,
  event_created_at timestamptz,
  event_data jsonb,
  secrets text[]
);

-- Takes the oldest pending delivery of each (endpoint, stream) pair for one attempt, under a lease until
-- `p_lease_until`. Strict order: nothing behind a head is sent while the head waits for its retry. Heads are
-- locked with `skip locked`: one locked elsewhere (being claimed, recorded or replayed) is `busy`, whoever
-- holds it continues the stream, and two claims never wait on each other in a cycle. A pair asked for twice
-- is claimed for its first asker only. Rows come back numbered like the input (`n`, from 1).
create function mailroom_webhook_claim_heads(
  p_endpoint_ids uuid[], p_streams text[], p_now timestamptz, p_lease_until timestamptz
) returns setof mailroom_webhook_claim language plpgsql as $$
declare
  r mailroom_webhook_claim;
  v_disabled uuid[];
  v_wake_keys text[] := '{}';
  v_wake_endpoints uuid[] := '{}';
  v_wake_streams text[] := '{}';
  v_wake_at timestamptz[] := '{}';
begin
  -- Deliveries fanned out while their endpoint was being disabled fail like the others did.
  v_disabled := array(select id from webhook_endpoints where id = any(p_endpoint_ids) and not enabled);
  if cardinality(v_disabled) > 0 then
    update webhook_deliveries
    set state = 'failed', last_error = 'endpoint disabled', lease_until = null, updated_at = now()
    where endpoint_id = any(v_disabled) and state = 'pending';
  end if;

  for r in
    with wanted as (
      select w.endpoint_id, w.stream, w.n
      from unnest(p_endpoint_ids, p_streams) with ordinality as w(endpoint_id, stream, n)
    ), endpoint as (
      select p.id, p.url, p.enabled,
             array(select s.secret from webhook_secrets s
                   where s.endpoint_id = p.id and (s.expires_at is null or s.expires_at > p_now)
                   order by s.id desc) as secrets
      from webhook_endpoints p where p.id = any(p_endpoint_ids)
    ), head as (
      select w.n, w.endpoint_id, h.id, h.next_attempt_at, h.lease_until,
             row_number() over (partition by h.id order by w.n) as asker,
             -- An earlier event of the stream not fanned out yet: it goes first, once its fan-out commits.
             exists (select 1 from webhook_events cur join webhook_events ev
                       on ev.account = cur.account and ev.stream = cur.stream and ev.seq < cur.seq
                     where cur.id = h.event_id and ev.fanned_out_at is null) as blocked
      from wanted w
      cross join lateral (
        select d.id, d.event_id, d.next_attempt_at, d.lease_until from webhook_deliveries d
        where d.endpoint_id = w.endpoint_id and d.stream = w.stream and d.state = 'pending'
        order by d.event_seq limit 1
      ) h
    ), due as (
      -- Locked one by one through the primary key (a lateral lookup per head): however stale the statistics
      -- of a table that just grew, the planner cannot trade this for a scan of every pending delivery.
      select l.id
      from head h
      join endpoint e on e.id = h.endpoint_id and e.enabled
      cross join lateral (
        select x.id from webhook_deliveries x
        where x.id = h.id and x.state = 'pending' and x.next_attempt_at <= p_now
          and (x.lease_until is null or x.lease_until <= p_now)
        for update skip locked
      ) l
      where h.asker = 1 and not h.blocked
    ), claimed as (
      update webhook_deliveries d set lease_until = p_lease_until
      where d.id = any(array(select id from due))
      returning d.id, d.event_id, d.attempts, d.schedule_step
    )
    select w.n,
           case when h.id is null or e.id is null or not e.enabled then 'idle'
                when c.id is not null and h.asker = 1 then 'deliver'
                when h.lease_until > p_now then 'busy'
                when h.next_attempt_at > p_now or h.blocked then 'wait'
                else 'busy' end,
           c.id, c.event_id, c.attempts, c.schedule_step,
           -- For a head leased elsewhere: when that lease ends (see the wake-up below). For a head behind an
           -- event not yet fanned out: a second from now, by when that fan-out has normally committed.
           case when c.id is null and h.lease_until > p_now then h.lease_until
                when c.id is null and h.blocked then greatest(h.next_attempt_at, p_now + interval '1 second')
                else h.next_attempt_at end,
           e.url, v.type, v.created_at,
           v.data, e.secrets
    from wanted w
    left join head h on h.n = w.n
    left join endpoint e on e.id = w.endpoint_id
    left join claimed c on c.id = h.id and h.asker = 1
    left join webhook_events v on v.id = c.event_id
    order by w.n
  loop
    -- Woken early (a new event, a replay): sleep again until the head is due. A head leased to someone else
    -- wakes the stream when that lease ends, under a key of its own (it must never move the stream's
    -- ordinary wake-up): if the holder is alive it will have moved on and the wake-up finds the stream idle
    -- or continues it; if the holder's job failed after its claim (a database blip, a crash), nothing else
    -- would pick the stream up before its next event.
    if r.outcome = 'wait' or (r.outcome = 'busy' and r.next_attempt_at > p_now) then
      v_wake_keys := v_wake_keys || (case when r.outcome = 'wait' then 'webhook:' else 'webhook-lease:' end
                                     || p_endpoint_ids[r.n] || ':' || p_streams[r.n]);
      v_wake_endpoints := v_wake_endpoints || p_endpoint_ids[r.n];
      v_wake_streams := v_wake_streams || p_streams[r.n];
      v_wake_at := v_wake_at || r.next_attempt_at;
    end if;
    return next r;
  end loop;

  -- The wake-ups, in the same transaction.
  if cardinality(v_wake_keys) > 0 then
    perform graphile_worker.add_jobs(array(
      select distinct on (k)
             row('webhook_deliver', json_build_object('endpointId', e, 'streams', json_build_array(s)), null,
                 at, 25, k, null, null)::graphile_worker.job_spec
      from unnest(v_wake_keys, v_wake_endpoints, v_wake_streams, v_wake_at) as u(k, e, s, at)
      order by k, at desc
    ));
  end if;
end
$$;

-- Records successful attempts: each delivery `succeeded` with its attempt row, and the failure streak of
-- their endpoints ended. Locks are taken in the order every other writer takes them — a failing endpoint,
-- then deliveries, each kind in id order — so two records, or a record and a failure being recorded (which
-- may disable the endpoint and fail its pending deliveries), never wait on each other in a cycle. Locking the
-- deliveries first also means none is deleted (its endpoint removed) between the check and its attempt's
-- foreign key: an attempt whose delivery is already gone is dropped with it. Whether a stream has more to
-- send is left to the worker's next claim, made after this commits: a delivery fanned out meanwhile was
-- answered `busy` by the lease, so only the lease holder can pick it up, and only after its commit.
create function mailroom_webhook_record_successes(
  p_ids uuid[], p_endpoint_ids uuid[], p_attempts integer[], p_at timestamptz[], p_duration_ms integer[],
  p_status_codes integer[], p_excerpts text[]
) returns void language plpgsql as $$
begin
  -- The endpoint row is written only when a failure streak ends: writing it on every success would serialise
  -- all deliveries to the endpoint on its row lock.
  perform 1 from webhook_endpoints
  where id = any(p_endpoint_ids) and failing_since is not null order by id for update;
  perform 1 from webhook_deliveries where id = any(p_ids) order by id for update;
  insert into webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, response_excerpt)
  select u.id, u.attempt, u.at, u.duration_ms, u.status_code, u.excerpt
  from unnest(p_ids, p_attempts, p_at, p_duration_ms, p_status_codes, p_excerpts)
    as u(id, attempt, at, duration_ms, status_code, excerpt)
  where exists (select 1 from webhook_deliveries d where d.id = u.id);
  update webhook_deliveries d
  set state = 'succeeded', attempts = d.attempts + 1, lease_until = null, last_status_code = u.status_code,
      last_error = null, delivered_at = u.at, updated_at = now()
  from unnest(p_ids, p_at, p_status_codes) as u(id, at, status_code)
  -- `any(p_ids)` too: a primary-key lookup even when the statistics of a table that just grew are stale.
  where d.id = u.id and d.id = any(p_ids);
  update webhook_endpoints set failing_since = null
  where id = any(p_endpoint_ids) and failing_since is not null;
end
$$;
