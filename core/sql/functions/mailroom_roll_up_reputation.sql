-- The one place that counts mail for the reputation guard (issue 31 item 2, issue 29 item 4; ADR 0052), and
-- the one writer of `reputation_counters` and `reputation_rollup`: adds the email timeline's new `delivered`,
-- `bounced` and `complained` events to the hourly counters of (account, sending domain). Sent is an email's
-- delivery or its bounce at the handover; a bounce reported later (`detail.later`) counts as a bounce of mail
-- already sent. Which mail counts is decided here and nowhere else: the mailbox simulator's (`emails.simulated`,
-- ADR 0049) and captured sandbox mail (`emails.sandbox`, ADR 0047; its chaos bounces are drills) never reach a
-- receiver, so they never count.
--
-- Events are read by id, in order. An id is taken before its transaction commits, so a lower id can appear
-- after a higher one: the roll-up reads only up to a horizon (the highest id) noted at least `p_settle` ago,
-- by when every transaction that held a lower id has committed, and at most `p_max` events per call (the
-- first call starts from the beginning of the log). Called only by core/src/reputation/rollup.ts, from the
-- `guard_reputation` job. Returns how many events were read.
create or replace function mailroom_roll_up_reputation(p_now timestamptz, p_settle interval, p_max integer)
returns integer language plpgsql as $$
declare
  v_state reputation_rollup;
  v_to bigint;
  v_read integer := 0;
begin
  insert into reputation_rollup (rolled_through, horizon, horizon_at)
  values (0, coalesce((select max(id) from email_events), 0), p_now) on conflict do nothing;
  select * into v_state from reputation_rollup for update;
  if v_state.horizon_at <= p_now - p_settle and v_state.horizon > v_state.rolled_through then
    v_to := least(v_state.horizon, v_state.rolled_through + p_max);
    insert into reputation_counters as c (account, domain, hour, sent, delivered, bounced, complained)
    select m.account, lower(split_part(m.from_address, '@', 2)), date_trunc('hour', ev.at),
           count(*) filter (where ev.type = 'delivered'
                              or (ev.type = 'bounced' and coalesce((ev.detail->>'later')::boolean, false) = false)),
           count(*) filter (where ev.type = 'delivered'),
           count(*) filter (where ev.type = 'bounced'),
           count(*) filter (where ev.type = 'complained')
    from email_events ev
    join emails m on m.id = ev.email_id
    where ev.id > v_state.rolled_through and ev.id <= v_to and ev.type in ('delivered', 'bounced', 'complained')
      and not m.simulated and not m.sandbox
    group by 1, 2, 3
    on conflict (account, domain, hour) do update
      set sent = c.sent + excluded.sent, delivered = c.delivered + excluded.delivered, bounced = c.bounced + excluded.bounced,
          complained = c.complained + excluded.complained;
    v_read := v_to - v_state.rolled_through;
    update reputation_rollup set rolled_through = v_to;
    v_state.rolled_through := v_to;
  end if;
  -- Caught up with the horizon: note the next one, to be read once it has settled.
  if v_state.rolled_through >= v_state.horizon then
    update reputation_rollup
    set horizon = greatest(v_state.horizon, coalesce((select max(id) from email_events), 0)), horizon_at = p_now;
  end if;
  return v_read;
end
$$;
