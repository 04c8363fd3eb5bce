-- The one writer of emails' partitions (ADR 0055): weekly ranges of ids (UUIDv7, so weeks of acceptance), the
-- same bounds as the timeline's (mailroom_email_event_partitions.sql), named emails_<monday, YYYYMMDD>, made
-- ahead of time and dropped whole once past retention. Called by the purge job
-- (core/src/emails/timeline-partitions.ts), which decides the weeks and the cutoff.

-- Every range partition of emails with its bounds as ids (the default partition has none; a lower bound of
-- MINVALUE is the nil uuid, an upper one of MAXVALUE the highest).
create or replace function mailroom_email_partition_bounds()
returns table (name text, lower_id uuid, upper_id uuid) language sql stable as $$
  select c.relname::text,
         coalesce((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([0-9a-f-]+)''\)'))[1]::uuid,
                  '00000000-0000-0000-0000-000000000000'),
         coalesce((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([0-9a-f-]+)''\)'))[1]::uuid,
                  'ffffffff-ffff-ffff-ffff-ffffffffffff')
  from pg_inherits i join pg_class c on c.oid = i.inhrelid
  where i.inhparent = 'emails'::regclass
    and pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
$$;

-- Makes the partitions of the weeks (UTC, from Monday) of p_from up to p_weeks weeks after it, those not made
-- yet; returns their names. A week that overlaps a partition already there (the old table, attached for every
-- id below its bound) is left out, and so is one whose emails already sit in the default partition (accepted
-- before its partition existed: they stay there, and row deletes remove them). Making a partition locks emails
-- (and reads the default partition, kept empty by making weeks ahead): a week whose lock is not had within a
-- second is left for the next run.
create or replace function mailroom_create_email_partitions(p_from timestamptz, p_weeks integer)
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
    v_name := 'emails_' || to_char(v_week at time zone 'UTC', 'YYYYMMDD');
    v_lower := mailroom_uuidv7_floor(v_week);
    v_upper := mailroom_uuidv7_floor(v_week + interval '1 week');
    continue when to_regclass(v_name) is not null
      or exists (select 1 from mailroom_email_partition_bounds() b
                 where b.lower_id < v_upper and b.upper_id > v_lower);
    begin
      execute format('create table %I partition of emails for values from (%L) to (%L)',
                     v_name, v_lower, v_upper);
      return next v_name;
    exception
      when check_violation then null; -- the default partition has emails of this week
      when lock_not_available then null;
    end;
  end loop;
end $$;

-- Drops the partitions of emails whose every id is below p_cutoff's (accepted before it) and none of whose
-- emails is still unsent; returns their names. A week goes whole, emails changed late included (ADR 0055).
-- What refers to its emails without a foreign key (ADR 0055) is deleted first, by the same id range, in the
-- same subtransaction: attachments, raw messages, sandbox captures, and timeline events outside a dropped week
-- of email_events (the default partition, a late event). If the drop's lock is not had within a second, all of
-- it is rolled back and the week is left for the next run, so the writers of emails never queue long behind it.
create or replace function mailroom_drop_email_partitions(p_cutoff timestamptz)
returns setof text language plpgsql
set lock_timeout = '1s' as $$
declare
  b record;
begin
  for b in select * from mailroom_email_partition_bounds()
           where upper_id <= mailroom_uuidv7_floor(p_cutoff) order by upper_id loop
    -- The same statuses as the emails_unsent index, so this is four index probes, not a read of the week.
    continue when exists (select 1 from emails e
                          where e.status in ('scheduled', 'queued', 'deferred', 'sending')
                            and e.id >= b.lower_id and e.id < b.upper_id);
    -- A week of timeline inside it that is still there (its drop waited for a lock) goes first, at a later
    -- run, rather than by a delete of its rows here.
    continue when exists (select 1 from mailroom_email_event_partition_bounds() t
                          where t.lower_id >= b.lower_id and t.upper_id <= b.upper_id);
    begin
      delete from email_attachments where email_id >= b.lower_id and email_id < b.upper_id;
      delete from email_raw_messages where email_id >= b.lower_id and email_id < b.upper_id;
      delete from sandbox_messages where email_id >= b.lower_id and email_id < b.upper_id;
      delete from email_events where email_id >= b.lower_id and email_id < b.upper_id;
      execute format('drop table %I', b.name);
      return next b.name;
    exception when lock_not_available then
      null;
    end;
  end loop;
end $$;
