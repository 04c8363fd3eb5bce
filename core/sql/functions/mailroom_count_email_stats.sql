-- The one writer of `email_stats` and `email_stats_daily` (issue 33 item 1, ADR 0060): adds the transitions
-- the timeline's one writer, mailroom_append_email_events (email_lifecycle.sql), is appending to the counters
-- of each email's account, hour (and day), and dimension (the whole account, the sender's domain, the
-- category, each tag). Called only by it, so every transition is counted once, in its own transaction. What
-- counts follows the reputation roll-up (mailroom_roll_up_reputation): sent is a delivery or a bounce at the handover; a bounce reported later
-- (`detail.later`) is a bounce of mail already sent; the mailbox simulator's and captured sandbox mail never
-- reach a receiver and never count. Failed and deferred count transitions (an email deferred twice counts
-- twice). Latency is accept (or the scheduled time, if later) to the delivery's record.
--
-- Lock order: the counter rows are upserted in key order, the hours' and then the days', after the emails the
-- caller locked; the whole account's row sorts first, so two transactions counting for one account queue at
-- that row instead of deadlocking over the others. The plan is generic and probes `emails` by id (ADR 0008).

-- Upper bounds (milliseconds) of the latency buckets: fine enough below a minute for p50 and p99 to read well,
-- coarse beyond (a retry's hours). core/src/stats/latency.ts holds the same list (a test compares them).
create or replace function mailroom_stats_latency_bounds() returns integer[]
language sql immutable parallel safe as $$
  select array[50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 15000, 20000, 30000,
               45000, 60000, 90000, 120000, 180000, 300000, 600000, 900000, 1800000, 3600000, 7200000,
               14400000, 43200000, 86400000]
$$;

-- A histogram (one count per bucket) from the bucket numbers (1-based) of some latencies.
create or replace function mailroom_stats_histogram(p_buckets integer[]) returns integer[]
language sql immutable parallel safe as $$
  select array_agg((select count(*) from unnest(p_buckets) as b where b = i)::integer order by i)
  from generate_series(1, cardinality(mailroom_stats_latency_bounds()) + 1) as i
$$;

-- Two histograms added element-wise (a missing element counts 0, so `{}` is the empty histogram).
create or replace function mailroom_stats_add(p_a integer[], p_b integer[]) returns integer[]
language sql immutable parallel safe as $$
  select coalesce(array_agg(coalesce(u.a, 0) + coalesce(u.b, 0) order by u.n), '{}')
  from unnest(p_a, p_b) with ordinality as u(a, b, n)
$$;

create or replace function mailroom_count_email_stats(p_email_ids uuid[], p_states text[], p_details jsonb[])
returns void language plpgsql set plan_cache_mode = force_generic_plan as $$
declare
  -- This call's counts, grouped once and added to the hour's rows and then to the day's.
  v_counts email_stats[];
begin
  -- The accept, the claim's `sending`, a cancel and the rest count nothing: no probe of `emails` for them.
  if not (p_states && array['delivered', 'bounced', 'complained', 'failed', 'deferred']) then
    return;
  end if;
  -- A row constructor of the table's type: an anonymous record would be converted through its text form.
  select array_agg(row(c.account, c.dimension, c.hour, c.value, c.sent, c.delivered, c.bounced, c.complained,
                       c.failed, c.deferred, c.latency)::email_stats order by c.account, c.dimension, c.value)
  into v_counts
  from (
    select e.account, d.dimension, date_trunc('hour', now(), 'UTC') as hour, d.value,
           count(*) filter (where u.state = 'delivered'
                              or (u.state = 'bounced' and coalesce((u.detail->>'later')::boolean, false) = false))::int,
           count(*) filter (where u.state = 'delivered')::int,
           count(*) filter (where u.state = 'bounced')::int,
           count(*) filter (where u.state = 'complained')::int,
           count(*) filter (where u.state = 'failed')::int,
           count(*) filter (where u.state = 'deferred')::int,
           mailroom_stats_histogram(array_agg(
             width_bucket((extract(epoch from now() - greatest(e.created_at, e.scheduled_at)) * 1000)::float8,
                          mailroom_stats_latency_bounds()::float8[]) + 1) filter (where u.state = 'delivered'))
    from unnest(p_email_ids, p_states, p_details) as u(id, state, detail)
    -- A probe per email (`offset 0`), never a join the generic plan could turn into a scan.
    cross join lateral (select * from emails where id = u.id offset 0) as e
    cross join lateral (
      select '' as dimension, '' as value
      union all select 'domain', lower(split_part(e.from_address, '@', 2))
      union all select 'category', e.category
      union all select 'tag', (t->>'name') || ':' || (t->>'value') from jsonb_array_elements(e.tags) as t
    ) as d
    where u.state in ('delivered', 'bounced', 'complained', 'failed', 'deferred')
      and not e.simulated and not e.sandbox
    group by e.account, d.dimension, d.value
  ) as c(account, dimension, hour, value, sent, delivered, bounced, complained, failed, deferred, latency);
  if v_counts is null then
    return;
  end if;
  insert into email_stats as s
  select * from unnest(v_counts) order by account, dimension, value
  on conflict (account, dimension, hour, value) do update
    set sent = s.sent + excluded.sent, delivered = s.delivered + excluded.delivered,
        bounced = s.bounced + excluded.bounced, complained = s.complained + excluded.complained,
        failed = s.failed + excluded.failed, deferred = s.deferred + excluded.deferred,
        latency = mailroom_stats_add(s.latency, excluded.latency);
  insert into email_stats_daily as s (account, dimension, day, value, sent, delivered, bounced, complained,
                                      failed, deferred, latency)
  select account, dimension, date_trunc('day', hour, 'UTC'), value, sent, delivered, bounced, complained,
         failed, deferred, latency
  from unnest(v_counts) order by account, dimension, value
  on conflict (account, dimension, day, value) do update
    set sent = s.sent + excluded.sent, delivered = s.delivered + excluded.delivered,
        bounced = s.bounced + excluded.bounced, complained = s.complained + excluded.complained,
        failed = s.failed + excluded.failed, deferred = s.deferred + excluded.deferred,
        latency = mailroom_stats_add(s.latency, excluded.latency);
end
$$;

-- Made once (migration 0173): the days counted before email_stats_daily existed, summed from their hours.
-- In the transaction that applies the function above, with the counting held (a share lock on email_stats)
-- from before the sum to the commit: no transition is counted in the hours and missed in the days.
do $$
begin
  if exists (select 1 from email_stats_daily) or not exists (select 1 from email_stats) then
    return;
  end if;
  lock table email_stats in share mode;
  insert into email_stats_daily (account, dimension, day, value, sent, delivered, bounced, complained, failed,
                                 deferred, latency)
  select account, dimension, date_trunc('day', hour, 'UTC'), value, sum(sent), sum(delivered), sum(bounced),
         sum(complained), sum(failed), sum(deferred),
         -- The histograms element-wise (31 buckets: mailroom_stats_latency_bounds() and one above).
         array[coalesce(sum(latency[1]), 0), coalesce(sum(latency[2]), 0), coalesce(sum(latency[3]), 0),
               coalesce(sum(latency[4]), 0), coalesce(sum(latency[5]), 0), coalesce(sum(latency[6]), 0),
               coalesce(sum(latency[7]), 0), coalesce(sum(latency[8]), 0), coalesce(sum(latency[9]), 0),
               coalesce(sum(latency[10]), 0), coalesce(sum(latency[11]), 0), coalesce(sum(latency[12]), 0),
               coalesce(sum(latency[13]), 0), coalesce(sum(latency[14]), 0), coalesce(sum(latency[15]), 0),
               coalesce(sum(latency[16]), 0), coalesce(sum(latency[17]), 0), coalesce(sum(latency[18]), 0),
               coalesce(sum(latency[19]), 0), coalesce(sum(latency[20]), 0), coalesce(sum(latency[21]), 0),
               coalesce(sum(latency[22]), 0), coalesce(sum(latency[23]), 0), coalesce(sum(latency[24]), 0),
               coalesce(sum(latency[25]), 0), coalesce(sum(latency[26]), 0), coalesce(sum(latency[27]), 0),
               coalesce(sum(latency[28]), 0), coalesce(sum(latency[29]), 0), coalesce(sum(latency[30]), 0),
               coalesce(sum(latency[31]), 0)]::int[]
  from email_stats
  group by 1, 2, 3, 4;
end $$;
