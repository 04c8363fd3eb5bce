-- Up Migration
-- A person's groups asked again of the provider after sign-in (issue 33 item 3, ADR 0063). Expand-only
-- (ADR 0042). Written only through core/src/keys/person.ts.
alter table api_keys
  -- The provider's refresh token, AES-256-GCM under the key-encryption key, bound to the key id; null when
  -- the provider issued none (then only the idle timeout and the 30-day expiry end the session).
  add column owner_refresh_token bytea,
  -- When the person's groups were last confirmed by the provider.
  add column owner_checked_at timestamptz;
