-- Takes the oldest pending delivery of each (endpoint, stream) pair for one attempt, under a lease until
-- `p_lease_until`. Strict order: nothing behind a head is sent while the head waits for its retry. Heads are
-- locked with `skip locked`: one locked elsewhere (being claimed, recorded or replayed) is `busy`, whoever
-- holds it continues the stream, and two claims never wait on each other in a cycle. A pair asked for twice
-- is claimed for its first asker only. Rows come back numbered like the input (`n`, from 1).
create or replace function mailroom_webhook_claim_heads(
  p_endpoint_ids uuid[], p_streams text[], p_now timestamptz, p_lease_until timestamptz
) returns setof mailroom_webhook_claim language plpgsql as $$
declare
  r mailroom_webhook_claim;
  v_disabled uuid[];
  v_wake_prefixes text[] := '{}';
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
      select p.id, p.url, p.enabled, p.failing_since,
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
           v.data, e.secrets, v.trace, e.failing_since
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
      v_wake_prefixes := v_wake_prefixes || case when r.outcome = 'wait' then 'webhook' else 'webhook-lease' end;
      v_wake_endpoints := v_wake_endpoints || p_endpoint_ids[r.n];
      v_wake_streams := v_wake_streams || p_streams[r.n];
      v_wake_at := v_wake_at || r.next_attempt_at;
    end if;
    return next r;
  end loop;

  -- The wake-ups, in the same transaction.
  perform mailroom_enqueue_webhook_deliver(v_wake_endpoints, array(select jsonb_build_array(s) from
    unnest(v_wake_streams) with ordinality as u(s, n) order by n), v_wake_at, v_wake_prefixes);
end
$$;
