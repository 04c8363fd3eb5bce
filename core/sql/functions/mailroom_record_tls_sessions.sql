-- The one writer of `tls_sessions` and `transit_counts`: adds delivery sessions to their day's counts for the
-- TLS reports (`p_rows`, one jsonb array of rows as core/src/tls-reports/record.ts builds them, each with its
-- `sessions`) and the same attempts' per-account figures for the transit view (`p_transit`, rows as
-- core/src/transit/rows.ts builds them, ADR 0066), in one statement, so the two never disagree. Called by the
-- deliver task's recorder after an attempt is recorded, batched across concurrent attempts. Rows are locked in
-- key order, `tls_sessions` first, so two batches touching the same counts cannot deadlock.
drop function if exists mailroom_record_tls_sessions(jsonb);
create or replace function mailroom_record_tls_sessions(p_rows jsonb, p_transit jsonb) returns void
language plpgsql as $$
begin
  insert into tls_sessions as t (day, policy_domain, policy_type, policy_sha256, policy_strings, mx_host,
                                 receiving_ip, result_type, failure_reason, sessions)
  select r.day, r.policy_domain, r.policy_type, decode(r.policy_sha256, 'hex'), r.policy_strings,
         r.mx_host, r.receiving_ip, r.result_type, r.failure_reason, sum(r.sessions)
  from jsonb_to_recordset(p_rows) as r(day date, policy_domain text, policy_type text, policy_sha256 text,
    policy_strings text[], mx_host text, receiving_ip text, result_type text, failure_reason text,
    sessions bigint)
  group by 1, 2, 3, 4, 5, 6, 7, 8, 9
  order by 1, 2, 3, 4, 6, 7, 8, 9
  on conflict (day, policy_domain, policy_type, policy_sha256, mx_host, receiving_ip, result_type,
               failure_reason)
  do update set sessions = t.sessions + excluded.sessions;

  -- Per key: the sum, and the reason of the latest row (the batch's rows of one key, then the stored one).
  insert into transit_counts as t (account, hour, domain, destination, kind, mechanism, result, count,
                                   last_at, last_reason)
  select r.account, r.hour, r.domain, r.destination, r.kind, r.mechanism, r.result, sum(r.count),
         max(r.at), (array_agg(r.reason order by r.at desc))[1]
  from jsonb_to_recordset(p_transit) as r(account text, hour timestamptz, domain text, destination text,
    kind text, mechanism text, result text, count integer, at timestamptz, reason text)
  group by 1, 2, 3, 4, 5, 6, 7
  order by 1, 2, 3, 4, 5, 6, 7
  on conflict (account, hour, domain, destination, kind, mechanism, result)
  do update set count = t.count + excluded.count,
                last_at = greatest(t.last_at, excluded.last_at),
                last_reason = case when excluded.last_at >= t.last_at then excluded.last_reason
                                   else t.last_reason end;
end
$$;
