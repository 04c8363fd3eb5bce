-- Up Migration
-- The operator's record of which custom resource owns which Postgres row (issue 6).
--
-- Postgres, not the resource's status, is the source of truth: status can be lost (a restore, a re-created
-- CRD) and must never be trusted to find a key to revoke. `uid` tells a re-created resource of the same name
-- from the one that made the row. `claim` is an exclusive name across namespaces: a SendingDomain's domain
-- may be declared by one resource only; the second one finds the unique index taken and reports Conflict.

create table operator_bindings (
  kind text not null check (kind in ('ApiKey', 'SendingDomain', 'Template', 'WebhookEndpoint')),
  namespace text not null check (namespace ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
  name text not null,
  uid text not null,
  -- keyId, domain id, template id or endpoint id; null while a claim is held but the row not yet made.
  target_id text,
  claim text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (kind, namespace, name)
);
create unique index operator_bindings_claim on operator_bindings (kind, claim) where claim is not null;
