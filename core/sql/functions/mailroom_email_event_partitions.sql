-- The one writer of email_events' partitions (ADR 0043): weekly ranges of email ids (UUIDv7, so weeks of
-- acceptance), named email_events_<monday, YYYYMMDD>, made ahead of time and dropped whole once past retention.
-- Called by the purge job (core/src/emails/timeline-partitions.ts), which decides the weeks and the cutoff.

-- Its weekly partitions with their bounds as ids (mailroom_weekly_partitions.sql).
create or replace function mailroom_email_event_partition_bounds()
returns table (name text, lower_id uuid, upper_id uuid) language plpgsql stable as $$
begin
  return query select * from mailroom_weekly_partition_bounds('email_events');
end $$;

-- Makes its weekly partitions from p_from's week up to p_weeks weeks ahead (mailroom_weekly_partitions.sql).
create or replace function mailroom_create_email_event_partitions(p_from timestamptz, p_weeks integer)
returns setof text language plpgsql as $$
begin
  return query select * from mailroom_create_weekly_partitions('email_events', p_from, p_weeks);
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
