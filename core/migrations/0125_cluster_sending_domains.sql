-- Up Migration
-- Shared domains (issue 31 item 4, ADR 0054). A cluster-scoped ClusterSendingDomain is one domain row, its
-- DKIM keys, records, verification and rotation exactly as a SendingDomain's, owned by the reserved account
-- `@cluster`: no namespace can have that name (a namespace is a DNS label, `@` is not in one) and no API key
-- can belong to it (api_keys keeps the label check), so nobody sends as its owner. The namespaces allowed to
-- send from it are its grants.

alter table accounts drop constraint accounts_account_check;
alter table accounts add constraint accounts_account_check
  check (account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' or account = '@cluster');
alter table domains drop constraint domains_account_check;
alter table domains add constraint domains_account_check
  check (account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' or account = '@cluster');

-- The accounts (namespaces) allowed to send from a shared domain: each sends from it with its own log,
-- suppressions, quotas and reputation, which all key on the email's account, never the domain's. Written
-- only by core/src/domains/grants.ts (the operator resolves spec.allowedNamespaces into this set).
create table domain_grants (
  domain_id uuid not null references domains (id) on delete cascade,
  account text not null check (account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
  granted_at timestamptz not null default now(),
  primary key (domain_id, account)
);
create index domain_grants_account on domain_grants (account);

-- The operator's binding of a ClusterSendingDomain: the namespace column holds `@cluster`. A domain name is
-- one claim across both domain kinds, so a SendingDomain and a ClusterSendingDomain of the same domain
-- conflict like two SendingDomains do (the first keeps it, the second reports Conflict).
alter table operator_bindings drop constraint operator_bindings_kind_check;
alter table operator_bindings add constraint operator_bindings_kind_check
  check (kind in ('ApiKey', 'SendingDomain', 'ClusterSendingDomain', 'Template', 'WebhookEndpoint'));
alter table operator_bindings drop constraint operator_bindings_namespace_check;
alter table operator_bindings add constraint operator_bindings_namespace_check
  check (namespace ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' or namespace = '@cluster');
drop index operator_bindings_claim;
create unique index operator_bindings_claim on operator_bindings
  ((case when kind = 'ClusterSendingDomain' then 'SendingDomain' else kind end), claim)
  where claim is not null;
