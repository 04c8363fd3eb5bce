-- Up Migration
-- The timeline (email_events) becomes a table partitioned by week of acceptance (issue 28 item 5, ADR 0043), so
-- retention drops a week's events whole instead of deleting them row by row. The partition key is email_id:
-- ids are UUIDv7, so a range of ids is a range of accept times, every event of an email lands in the same
-- partition, and the timeline's read (`where email_id = $1`) is pruned to one partition.
--
-- Expand/contract (ADR 0043): the old code keeps working while this runs and after. It reads and writes
-- `email_events` by name with the same columns (it never names `id` on insert, never uses ON CONFLICT on it and
-- nothing references it), so the old table is renamed and attached, whole, as the first partition: no row is
-- copied. Attaching it reads it once to prove its ids are below the bound, under the lock the rename takes;
-- the new weekly partitions are made later, ahead of time, by mailroom_create_email_event_partitions (the
-- purge job). Until they exist, and for any id outside them, events land in the default partition.
lock table email_events in access exclusive mode;
alter table email_events rename to email_events_legacy;
alter index email_events_email rename to email_events_legacy_email;
alter table email_events_legacy rename constraint email_events_pkey to email_events_legacy_pkey;
-- The parent has no foreign key to emails: its ON DELETE CASCADE would run one delete per email against the
-- partitioned table (3-4x the cost of the same cascade on a plain table, Postgres 15). A statement-level
-- trigger on emails (core/sql/functions/mailroom_delete_email_timelines.sql) deletes the timelines of all the
-- emails one statement deletes, in one statement. The old table keeps its own key and cascade, so the old
-- code's purge deletes its rows' timelines at every moment of the upgrade, before that trigger exists too.
alter table email_events_legacy rename constraint email_events_email_id_fkey to email_events_legacy_email_id_fkey;
-- Postgres 15 has no identity column on a partitioned table: the ids continue from a plain sequence of the
-- same name (dropping the identity drops its sequence), as the parent's default.
alter table email_events_legacy alter column id drop identity;
create sequence email_events_id_seq;
select setval('email_events_id_seq', coalesce((select max(id) from email_events_legacy), 0) + 1, false);

create table email_events (
  id bigint not null default nextval('email_events_id_seq'),
  email_id uuid not null,
  type text not null,
  at timestamptz not null default clock_timestamp(),
  detail jsonb not null default '{}'
) partition by range (email_id);
alter sequence email_events_id_seq owned by email_events.id;
-- Attaching the old table adopts its matching index instead of building a new one.
create index email_events_email on email_events (email_id, id);

do $$
declare
  v_bound uuid := mailroom_uuidv7_floor(date_trunc('week', now(), 'UTC') + interval '1 week');
  v_highest uuid := (select email_id from email_events_legacy order by email_id desc limit 1);
begin
  if v_highest is null then
    drop table email_events_legacy;
  elsif v_highest < v_bound then
    -- Its emails were accepted before now, so their ids are below the start of next week.
    execute format('alter table email_events attach partition email_events_legacy for values from (minvalue) to (%L)',
                   v_bound);
  else
    -- An id that is not a UUIDv7 of the past (written by hand): the old table keeps the whole range, and no
    -- weekly partition is ever made over it (mailroom_create_email_event_partitions skips overlaps).
    alter table email_events attach partition email_events_legacy for values from (minvalue) to (maxvalue);
  end if;
end $$;

create table email_events_default partition of email_events default;
