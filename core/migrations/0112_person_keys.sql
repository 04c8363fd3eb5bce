-- Up Migration
-- Keys minted for a person at an OpenID Connect sign-in (issue 33 item 3, ADR 0063). Expand-only (ADR 0042):
-- machines' keys keep these columns null. Written only through core/src/keys/ (store.ts, person.ts).
alter table api_keys
  -- Who the key belongs to: the ID token's `iss`, `sub` and `email` claims; null for a machine's key.
  add column owner_issuer text,
  add column owner_subject text,
  add column owner_email text,
  -- The last request of a person's session, refreshed more often than last_used_at (which the spec keeps at
  -- about once an hour) so that an idle timeout of minutes can be told; null for a machine's key.
  add column session_active_at timestamptz,
  add constraint api_keys_owner_complete check (
    (owner_issuer is null) = (owner_subject is null) and (owner_subject is null) = (session_active_at is null)
  );

-- A person's active keys, found at sign-out and when their groups change.
create index api_keys_owner_idx on api_keys (owner_issuer, owner_subject) where owner_subject is not null;
