-- Weekly range partitions by UUIDv7 id, shared by the email log (ADR 0055) and its timeline (ADR 0043): the
-- same bounds for both, named <table>_<monday, YYYYMMDD>. Each table's file (mailroom_email_partitions.sql,
-- mailroom_email_event_partitions.sql) names its table and keeps what differs: what a dropped week takes along.

-- Every range partition of p_parent with its bounds as ids (the default partition has none; a lower bound of
-- MINVALUE is the nil uuid, an upper one of MAXVALUE the highest).
create or replace function mailroom_weekly_partition_bounds(p_parent regclass)
returns table (name text, lower_id uuid, upper_id uuid) language sql stable as $$
  select c.relname::text,
         coalesce((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([0-9a-f-]+)''\)'))[1]::uuid,
                  '00000000-0000-0000-0000-000000000000'),
         coalesce((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([0-9a-f-]+)''\)'))[1]::uuid,
                  'ffffffff-ffff-ffff-ffff-ffffffffffff')
  from pg_inherits i join pg_class c on c.oid = i.inhrelid
  where i.inhparent = p_parent
    and pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
$$;

-- Makes the partitions of p_parent for the weeks (UTC, from Monday) of p_from up to p_weeks weeks after it,
-- those not made yet; returns their names. A week that overlaps a partition already there (an old table
-- attached for every id below its bound) is left out, and so is one whose rows already sit in the default
-- partition (written before its partition existed: they stay there, and row deletes remove them). Making a
-- partition locks the table (and reads the default partition, kept empty by making weeks ahead): a week whose
-- lock is not had within a second is left for the next run.
create or replace function mailroom_create_weekly_partitions(p_parent regclass, p_from timestamptz, p_weeks integer)
returns setof text language plpgsql
set lock_timeout = '1s' as $$
declare
  v_week timestamptz;
  v_name text;
  v_lower uuid;
  v_upper uuid;
begin
  for i in 0..p_weeks loop
    v_week := date_trunc('week', p_from, 'UTC') + make_interval(weeks => i);
    v_name := (select relname from pg_class where oid = p_parent) || '_' || to_char(v_week at time zone 'UTC', 'YYYYMMDD');
    v_lower := mailroom_uuidv7_floor(v_week);
    v_upper := mailroom_uuidv7_floor(v_week + interval '1 week');
    continue when to_regclass(v_name) is not null
      or exists (select 1 from mailroom_weekly_partition_bounds(p_parent) b
                 where b.lower_id < v_upper and b.upper_id > v_lower);
    begin
      execute format('create table %I partition of %s for values from (%L) to (%L)',
                     v_name, p_parent, v_lower, v_upper);
      return next v_name;
    exception
      when check_violation then null; -- the default partition has rows of this week
      when lock_not_available then null;
    end;
  end loop;
end $$;
