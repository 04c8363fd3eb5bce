-- Up Migration
-- First of three steps that partition `emails` by week of acceptance (issue 28 item 5, ADR 0055), each in its
-- own transaction so none holds `emails` exclusively while it reads the table. This one adds, NOT VALID (a
-- catalog change, no read of the table), a CHECK that every id is below the Monday two weeks from now: 0151
-- validates it without blocking reads or writes, and 0152 then attaches the old table as the partition of
-- every id below that bound, its range proven by the constraint instead of by a scan under an exclusive lock.
-- The bound is a week or more ahead, so the accepts of the minutes between the steps stay inside it. A table
-- holding an id at or past the bound (one not made by newId, written by hand) gets no constraint: 0152 then
-- attaches it for every id, and no weekly partition is ever made over it.
do $$
declare
  v_bound uuid := mailroom_uuidv7_floor(date_trunc('week', now(), 'UTC') + interval '2 weeks');
  v_highest uuid := (select id from emails order by id desc limit 1);
begin
  if v_highest is null or v_highest < v_bound then
    execute format('alter table emails add constraint emails_legacy_bound check (id < %L) not valid', v_bound);
  end if;
end $$;
