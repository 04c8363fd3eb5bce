-- Up Migration
-- Issue 27: a domain the operator declared (a SendingDomain) could be deleted through the API, and re-applying the
-- resource then made new DKIM keys under the same selector, so the published records no longer matched the keys.
-- A domain now records who declared it (the API refuses to delete an operator's domain: 409 managed_by_operator),
-- and the selectors of deleted domains' keys are remembered so no new key is ever published under one of them.
alter table domains add column managed_by text not null default 'api' check (managed_by in ('api', 'operator'));
update domains d
   set managed_by = 'operator'
  from operator_bindings b
 where b.kind = 'SendingDomain' and b.target_id = d.id::text;

create table retired_dkim_selectors (
  account text not null,
  domain text not null,
  selector text not null,
  retired_at timestamptz not null default now(),
  primary key (account, domain, selector)
);
