-- The one writer of email_events' partitions (ADR 0043): weekly ranges of email ids (UUIDv7, so weeks of
-- acceptance), named email_events_<monday, YYYYMMDD>, made ahead of time and dropped whole once past retention.
-- Called by the purge job (core/src/emails/timeline-partitions.ts), which decides the weeks and the cutoff.

-- Every range partition of email_events with its bounds as ids (the default partition has none; a lower bound
-- of MINVALUE is the nil uuid, an upper one of MAXVALUE the highest).
create or replace function mailroom_email_event_partition_bounds()
returns table (name text, lower_id uuid, upper_id uuid) language sql stable as $$
  select c.relname::text,
         coalesce((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([0-9a-f-]+)''\)'))[1]::uuid,
                  '00000000-0000-0000-0000-000000000000'),
         coalesce((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([0-9a-f-]+)''\)'))[1]::uuid,
                  'ffffffff-ffff-ffff-ffff-ffffffffffff')
  from pg_inherits i join pg_class c on c.oid = i.inhrelid
  where i.inhparent = 'email_events'::regclass
    and pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
$$;

-- Makes the partitions of the weeks (UTC, from Monday) of p_from up to p_weeks weeks after it, those not made
-- yet; returns their names. A week that overlaps a partition already there (the old table, attached whole) is
-- left out, and so is one whose events already sit in the default partition (written before its partition
-- existed: they stay there, and row deletes remove them). Making a partition locks email_events: a week
-- whose lock is not had within a second is left for the next run (weeks are made four ahead).
create or replace function mailroom_create_email_event_partitions(p_from timestamptz, p_weeks integer)
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
    v_name := 'email_events_' || to_char(v_week at time zone 'UTC', 'YYYYMMDD');
    v_lower := mailroom_uuidv7_floor(v_week);
    v_upper := mailroom_uuidv7_floor(v_week + interval '1 week');
    continue when to_regclass(v_name) is not null
      or exists (select 1 from mailroom_email_event_partition_bounds() b
                 where b.lower_id < v_upper and b.upper_id > v_lower);
    begin
      execute format('create table %I partition of email_events for values from (%L) to (%L)',
                     v_name, v_lower, v_upper);
      return next v_name;
    exception
      when check_violation then null; -- the default partition has events of this week
      when lock_not_available then null;
    end;
  end loop;
end $$;

-- Drops the partitions whose every id is below p_cutoff's (accepted before it) and none of whose emails is
-- still unsent (those keep their timeline until they finish); returns their names. The emails' own rows go
-- by the row purge (core/src/emails/retention.ts), whose cascade then finds no events to delete. Dropping a
-- partition locks email_events briefly: a partition whose lock is not had within a second is left for the
-- next run rather than making the timeline's writers queue behind it.
create or replace function mailroom_drop_email_event_partitions(p_cutoff timestamptz)
returns setof text language plpgsql
set lock_timeout = '1s' as $$
declare
  b record;
begin
  for b in select * from mailroom_email_event_partition_bounds()
           where upper_id <= mailroom_uuidv7_floor(p_cutoff) order by upper_id loop
    -- The same statuses as the emails_unsent index, so this is four index probes, not a read of the week.
    continue when exists (select 1 from emails e
                          where e.status in ('scheduled', 'queued', 'deferred', 'sending')
                            and e.id >= b.lower_id and e.id < b.upper_id);
    begin
      execute format('drop table %I', b.name);
      return next b.name;
    exception when lock_not_available then
      null;
    end;
  end loop;
end $$;
