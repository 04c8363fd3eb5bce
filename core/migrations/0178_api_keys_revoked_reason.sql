-- Up Migration
-- Why a key was revoked, when Mailroom revoked it itself (a person's session idle too long, the provider no
-- longer vouching for them or their role gone: core/src/keys/person.ts, core/src/oidc/recheck.ts). Every later
-- use of the key is answered with it, not only the request that revoked it: another tab, or a request already
-- on its way, tells the person why too. Null for a revocation by a person or the operator, and before this.
alter table api_keys add column if not exists revoked_reason text;
