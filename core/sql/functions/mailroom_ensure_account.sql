-- The one writer of new `accounts` rows: adds the account's row unless it exists, and returns the account, so
-- a create statement adds the row in the same statement as the resource that needs it:
--   insert into api_keys (key_id, account, …) values ($1, mailroom_ensure_account($2), …)
-- Called by the create statements of core/src/keys/store.ts, core/src/domains/store.ts,
-- core/src/templates/store.ts and core/src/webhooks/store.ts (ADR 0028). Settings change through
-- core/src/accounts/.
create or replace function mailroom_ensure_account(p_account text) returns text language sql as $$
  insert into accounts (account) values (p_account) on conflict (account) do nothing;
  select p_account;
$$;
