-- Up Migration
-- The `audit` scope (issue 33 item 4, ADR 0062): a key that reads the account's audit trail, granted on its
-- own. Widening the check only admits a new value; keys with the four scopes stay valid.
alter table api_keys drop constraint api_keys_scopes_check;
alter table api_keys add constraint api_keys_scopes_check
  check (cardinality(scopes) > 0 and scopes <@ array['send', 'domains', 'templates', 'webhooks', 'audit']);
