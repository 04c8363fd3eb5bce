-- The one writer of emails' partitions (ADR 0055): weekly ranges of ids (UUIDv7, so weeks of acceptance), the
-- same bounds as the timeline's (mailroom_email_event_partitions.sql), named emails_<monday, YYYYMMDD>, made
-- ahead of time and dropped whole once past retention. Called by the purge job
-- (core/src/emails/timeline-partitions.ts), which decides the weeks and the cutoff.

-- Its weekly partitions with their bounds as ids (mailroom_weekly_partitions.sql).
create or replace function mailroom_email_partition_bounds()
returns table (name text, lower_id uuid, upper_id uuid) language plpgsql stable as $$
begin
  return query select * from mailroom_weekly_partition_bounds('emails');
end $$;

-- Makes its weekly partitions from p_from's week up to p_weeks weeks ahead (mailroom_weekly_partitions.sql),
-- their GIN indexes' pending lists bounded as below.
create or replace function mailroom_create_email_partitions(p_from timestamptz, p_weeks integer)
returns setof text language plpgsql as $$
declare
  v_name text;
begin
  for v_name in select * from mailroom_create_weekly_partitions('emails', p_from, p_weeks) loop
    perform mailroom_bound_email_gin_pending_lists(v_name::regclass);
    return next v_name;
  end loop;
end $$;

-- The GIN indexes of emails (the search's trigrams, tags, recipients) buffer new entries in a pending list
-- that every query using the index reads whole, until an insert finds it over gin_pending_list_limit (4 MB
-- by default, ~500 pages) and merges it. The week being written always has one: each accept and each status
-- change adds entries. Bounded to 256 kB (32 pages) on every partition (issue 33 item 2, ADR 0061): a search
-- reads at most that much unmerged, and the merge an accept occasionally pays is 16 times smaller. The
-- parent's index cannot carry the option (Postgres refuses to alter a partitioned index), so each partition's
-- copy is set, as each week is made (new and empty: no writer waits for it).
create or replace function mailroom_bound_email_gin_pending_lists(p_partition regclass default null)
returns setof text language plpgsql as $$
declare
  v_index regclass;
begin
  for v_index in
    select x.indexrelid::regclass
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_am am on am.oid = i.relam
    join pg_inherits h on h.inhrelid = x.indrelid and h.inhparent = 'emails'::regclass
    where am.amname = 'gin' and (p_partition is null or x.indrelid = p_partition)
      and not coalesce(i.reloptions @> array['gin_pending_list_limit=256'], false)
    order by 1
  loop
    execute format('alter index %s set (gin_pending_list_limit = 256)', v_index);
    return next v_index::text;
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
      delete from email_addresses where email_id >= b.lower_id and email_id < b.upper_id;
      delete from email_search_texts where email_id >= b.lower_id and email_id < b.upper_id;
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

-- The partitions made before the bound existed are not altered here: `alter index` takes an exclusive lock on
-- each index, which the writers of the week being written would queue behind (or deadlock with) under load, and
-- an email handed over whose record then failed would be handed over again (a rolling upgrade repeated one).
-- Mailroom's own sessions bound every GIN pending list anyway (gin_pending_list_limit, core/src/db/pool.ts).
