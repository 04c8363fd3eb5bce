-- Up Migration
-- Saved templates (issue 5). A template is a named, mutable head (name, description, who manages it) that
-- points at its current immutable version; the versions hold what gets rendered (subject, html, text and
-- the JSON Schema of the variables), so a send can always be traced to the exact content it used.

create table templates (
  -- UUIDv7: id order is creation order, which list pagination relies on (a cursor survives deletion).
  id uuid primary key,
  account text not null check (account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
  -- Letters, digits, `.`, `_`, `-`; Kubernetes object names fit, so the operator can use a CR's name.
  name text not null check (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$'),
  description text check (length(description) <= 1000),
  -- Templates declared by a Template CR are read-only through the API.
  managed_by text not null default 'api' check (managed_by in ('api', 'operator')),
  current_version integer not null check (current_version >= 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (account, name)
);
create index templates_account_id on templates (account, id desc);

create table template_versions (
  template_id uuid not null references templates (id) on delete cascade,
  version integer not null check (version >= 1),
  subject text not null,
  html text,
  text text,
  -- JSON Schema (draft-07) the variables must satisfy; null accepts any object.
  variables jsonb check (variables is null or jsonb_typeof(variables) = 'object'),
  created_at timestamptz not null default now(),
  primary key (template_id, version),
  check (html is not null or text is not null)
);

-- The head always points at a version that exists; deferred because both rows are written in one transaction.
alter table templates add constraint templates_current_version_exists
  foreign key (id, current_version) references template_versions (template_id, version)
  deferrable initially deferred;

-- A version is what some email was rendered from: it must never change after it is written. Deleting
-- the template (cascade) is still allowed.
create function template_versions_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'template versions are immutable' using errcode = 'P0001';
end;
$$;
create trigger template_versions_no_update before update on template_versions
  for each row execute function template_versions_immutable();
