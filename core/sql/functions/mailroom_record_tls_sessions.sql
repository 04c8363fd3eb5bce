-- The one writer of `tls_sessions`: adds delivery sessions to their day's counts (one jsonb array of rows, as
-- core/src/tls-reports/record.ts builds them, each with its `sessions`). Called by the deliver task's recorder
-- after an attempt is recorded, batched across concurrent attempts. Rows are locked in key order, so two
-- batches touching the same counts cannot deadlock.
create or replace function mailroom_record_tls_sessions(p_rows jsonb) returns void language plpgsql as $$
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
end
$$;
