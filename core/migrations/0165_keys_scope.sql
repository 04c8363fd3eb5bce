-- Up Migration
-- The `keys` scope (issue 33 item 5, ADR 0069): a key that lists, creates (within its own scopes) and revokes
-- its account's keys through /v1/keys. Widening the check only admits a new value; existing keys stay valid.
alter table api_keys drop constraint api_keys_scopes_check;
alter table api_keys add constraint api_keys_scopes_check
  check (cardinality(scopes) > 0 and scopes <@ array['send', 'domains', 'templates', 'webhooks', 'audit', 'keys']);
