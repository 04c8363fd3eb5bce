-- Up Migration
-- The email log (emails) becomes a table partitioned by week of acceptance, like its timeline (0070, ADR 0043):
-- range of id (UUIDv7, so a range of ids is a range of accept times), the same weekly bounds as email_events'
-- partitions, so retention drops a week of emails whole (ADR 0055). Last of three steps: 0150 and 0151 proved,
-- without an exclusive lock, that every id of the table is below a bound a week or more ahead.
--
-- Expand/contract (ADR 0042): the previous release keeps reading and writing `emails` by name, with the same
-- columns, defaults, checks and keys, while this runs and after. The old table is renamed and attached whole,
-- as the partition of every id below that bound: no row is copied, and the validated CHECK proves the range,
-- so the exclusive lock below is held for catalog changes only (no read of the table). Generic on purpose:
-- every index, constraint and trigger the table has when this runs (migrations 0120-0149 of other branches
-- included) is carried to the partitioned parent under its own name, and the old table's copies are renamed
-- emails_legacy_*; the parent's indexes adopt the old table's matching ones when it is attached (no build).
-- What it cannot carry, it refuses loudly: a unique index without `id` (a partitioned table's unique keys must
-- hold its partition key) fails the create below; row-level security, publications and reloptions are not
-- copied (the table has none).
lock table emails in access exclusive mode;
alter table emails rename to emails_legacy;

do $$
declare
  v_legacy constant regclass := 'emails_legacy'::regclass;
  v_rowtype oid := (select reltype from pg_class where oid = 'emails_legacy'::regclass);
  v_bound uuid;
  v_week timestamptz;
  r record;
  v_name text;
begin
  -- Columns with their defaults, NOT NULLs, generated expressions, storage and comments; constraints and
  -- indexes follow one by one so each keeps its name.
  create table emails (like emails_legacy including defaults including generated including storage
                       including compression including comments including statistics)
    partition by range (id);

  -- CHECK constraints (the old table's own bound stays on it alone) and foreign keys out of emails: the same
  -- names, so attaching matches the old table's copies instead of validating them again.
  for r in select conname, pg_get_constraintdef(oid) as def from pg_constraint
           where conrelid = v_legacy and contype in ('c', 'f') and conname <> 'emails_legacy_bound' loop
    execute format('alter table emails add constraint %I %s', r.conname, r.def);
  end loop;

  -- Keys (primary, unique, exclusion): the old table's constraint is renamed, the parent's takes its name.
  for r in select conname, pg_get_constraintdef(oid) as def from pg_constraint
           where conrelid = v_legacy and contype in ('p', 'u', 'x') loop
    v_name := left('emails_legacy' || substr(r.conname, length('emails') + 1), 63);
    execute format('alter table emails_legacy rename constraint %I to %I', r.conname, v_name);
    execute format('alter table emails add constraint %I %s', r.conname, r.def);
  end loop;

  -- Other indexes: the same definition on the parent, under the old name.
  for r in select c.relname, pg_get_indexdef(i.indexrelid) as def
           from pg_index i join pg_class c on c.oid = i.indexrelid
           where i.indrelid = v_legacy
             and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.conrelid = v_legacy) loop
    v_name := left('emails_legacy' || substr(r.relname, length('emails') + 1), 63);
    execute format('alter index %I rename to %I', r.relname, v_name);
    execute regexp_replace(r.def, ' ON (public\.)?emails_legacy ', ' ON emails ');
  end loop;

  -- Triggers move to the parent: a statement trigger fires for the table a statement names (the old code's
  -- statements name emails), a row trigger on the parent is cloned to every partition.
  for r in select tgname, pg_get_triggerdef(oid) as def from pg_trigger
           where tgrelid = v_legacy and not tgisinternal loop
    execute format('drop trigger %I on emails_legacy', r.tgname);
    execute regexp_replace(r.def, ' ON (public\.)?emails_legacy ', ' ON emails ');
  end loop;

  -- Foreign keys into emails (timeline, attachments, raw messages, sandbox captures) are replaced by
  -- documented invariants (ADR 0055): dropping a week could not go past them, and a key to the old table
  -- would refuse the rows of emails in the new weeks. A statement trigger on emails deletes what a delete
  -- of emails leaves (core/sql/functions/mailroom_delete_email_dependents.sql), and dropping a week deletes
  -- its rows there first (mailroom_drop_email_partitions).
  for r in select conname, conrelid::regclass as tbl from pg_constraint
           where confrelid = v_legacy and contype = 'f' loop
    execute format('alter table %s drop constraint %I', r.tbl, r.conname);
  end loop;

  -- Functions typed by the table's row (`setof emails`, a parameter or column of type emails) are bound to
  -- the renamed table's type: made again, the same text, on the parent's, in this transaction, so the running
  -- programs never find them missing. core/sql/functions re-applies their live bodies just after.
  for r in select p.oid::regprocedure as sig, pg_get_functiondef(p.oid) as def from pg_proc p
           where p.prorettype = v_rowtype or v_rowtype = any(p.proargtypes)
              or v_rowtype = any(coalesce(p.proallargtypes, '{}')) loop
    execute format('drop function %s', r.sig);
    execute regexp_replace(r.def, '\memails_legacy\M', 'emails', 'g');
  end loop;

  v_bound := (regexp_match(
    (select pg_get_constraintdef(oid) from pg_constraint where conrelid = v_legacy and conname = 'emails_legacy_bound'),
    '''([0-9a-f-]+)'''))[1]::uuid;
  if not exists (select 1 from emails_legacy) then
    -- An installation that never sent: the weekly partitions take everything from the start. This week and
    -- the four after it are made here, as the purge job makes them later: the first emails, accepted before
    -- that job first runs, would otherwise fill the default partition and keep this week from being made.
    drop table emails_legacy;
    for i in 0..4 loop
      v_week := date_trunc('week', now(), 'UTC') + make_interval(weeks => i);
      execute format('create table %I partition of emails for values from (%L) to (%L)',
                     'emails_' || to_char(v_week at time zone 'UTC', 'YYYYMMDD'),
                     mailroom_uuidv7_floor(v_week), mailroom_uuidv7_floor(v_week + interval '1 week'));
    end loop;
  elsif v_bound is not null then
    execute format('alter table emails attach partition emails_legacy for values from (minvalue) to (%L)', v_bound);
  else
    -- An id that is not a UUIDv7 of the past (0150): the old table keeps the whole range.
    alter table emails attach partition emails_legacy for values from (minvalue) to (maxvalue);
  end if;
end $$;

-- The ids no week covers yet (before the purge job has made the weeks ahead) land here (ADR 0055).
create table emails_default partition of emails default;
