-- The one writer of `account_send_counters` (issue 31 item 1): counts p_sent emails against the account's
-- current second and UTC day, only if both stay within their limits (null: no limit, not counted). Rows are
-- locked second before day, always, so concurrent sends of one account queue rather than deadlock.
-- Returns the refusing period (`second` or `day`) and what that window holds, or `ok` with the day's count.
-- Called only by core/src/accounts/quota.ts, in the transaction of the accept when there is one (a batch):
-- a rolled-back accept leaves no count behind.
create or replace function mailroom_count_account_sends(
  p_account text, p_sent integer, p_now timestamptz, p_per_second integer, p_per_day integer
) returns table (verdict text, used integer, window_start timestamptz) language plpgsql as $$
declare
  v_second timestamptz := date_trunc('second', p_now);
  v_day timestamptz := date_trunc('day', p_now at time zone 'UTC') at time zone 'UTC';
  v_second_sent integer := 0;
  v_day_sent integer := 0;
begin
  if p_per_second is not null then
    insert into account_send_counters as c (account, period, window_start, sent)
    values (p_account, 'second', v_second, 0) on conflict do nothing;
    select c.sent into v_second_sent from account_send_counters c
    where c.account = p_account and c.period = 'second' and c.window_start = v_second for update;
  end if;
  if p_per_day is not null then
    insert into account_send_counters as c (account, period, window_start, sent)
    values (p_account, 'day', v_day, 0) on conflict do nothing;
    select c.sent into v_day_sent from account_send_counters c
    where c.account = p_account and c.period = 'day' and c.window_start = v_day for update;
  end if;
  if p_per_second is not null and v_second_sent + p_sent > p_per_second then
    return query select 'second', v_second_sent, v_second;
    return;
  end if;
  if p_per_day is not null and v_day_sent + p_sent > p_per_day then
    return query select 'day', v_day_sent, v_day;
    return;
  end if;
  update account_send_counters c set sent = c.sent + p_sent
  where c.account = p_account
    and ((c.period = 'second' and c.window_start = v_second and p_per_second is not null)
      or (c.period = 'day' and c.window_start = v_day and p_per_day is not null));
  return query select 'ok', v_day_sent + p_sent, v_day;
end
$$;
