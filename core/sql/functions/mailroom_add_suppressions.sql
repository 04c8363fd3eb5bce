-- The one writer of `suppressions`: adds addresses to accounts' suppression lists (parallel arrays), a repeat
-- keeping the first entry, and returns the rows it added. Called by core/src/suppressions/store.ts (bounce and
-- complaint reports, manual entries) and by mailroom_record_attempts (hard bounces at delivery).
create or replace function mailroom_add_suppressions(
  p_accounts text[], p_addresses text[], p_reasons text[], p_details text[], p_source_email_ids uuid[]
) returns setof suppressions language plpgsql as $$
begin
  return query
  insert into suppressions (account, address, reason, detail, source_email_id)
  select u.account, lower(u.address), u.reason, u.detail, u.source_email_id
  from unnest(p_accounts, p_addresses, p_reasons, p_details, p_source_email_ids)
    as u(account, address, reason, detail, source_email_id)
  on conflict (account, address) do nothing
  returning *;
end
$$;
