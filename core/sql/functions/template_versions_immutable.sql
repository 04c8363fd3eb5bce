-- A version is what some email was rendered from: it must never change after it is written. Deleting
-- the template (cascade) is still allowed.
create or replace function template_versions_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'template versions are immutable' using errcode = 'P0001';
end;
$$;
