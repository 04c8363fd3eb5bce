-- Up Migration
-- Webhook endpoints get their own scope (issue 5): a key that sends mail cannot redirect its events.
alter table api_keys drop constraint api_keys_scopes_check;
alter table api_keys add constraint api_keys_scopes_check
  check (cardinality(scopes) > 0 and scopes <@ array['send', 'domains', 'templates', 'webhooks']);
