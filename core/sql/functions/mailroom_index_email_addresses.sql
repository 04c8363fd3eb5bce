-- The one writer of email_addresses (issue 33, ADR 0061): the sender's and each recipient's address of every
-- email a statement inserts, lower-cased, for the log's search by address prefix (listEmails). A statement
-- trigger on emails, so every insert is indexed whoever makes it: the accept statement (core/src/emails/
-- accept.ts), the previous release's during an upgrade, the benchmarks' seeds. Rows go with their email
-- (mailroom_delete_email_dependents.sql, mailroom_drop_email_partitions).
create or replace function mailroom_index_email_addresses() returns trigger language plpgsql as $$
begin
  insert into email_addresses (email_id, account, address)
  select n.id, n.account, lower(a)
  from added n cross join lateral unnest(array_prepend(n.from_address, n.to_addresses)) as a
  where a <> ''
  order by 1, 3
  -- An address twice in one email (sender and recipient) is one row.
  on conflict do nothing;
  return null;
end $$;

-- Made once. The emails inserted between migration 0172's backfill and this (the previous release keeps
-- accepting) are caught up here, in the transaction that makes the trigger: it holds emails' writers from
-- now to its commit, so none is missed. Emails from an hour before 0172 ran on (pods' clocks, long
-- transactions); those already there are skipped.
do $$
begin
  if exists (select 1 from pg_trigger where tgrelid = 'emails'::regclass and tgname = 'emails_index_addresses') then
    return;
  end if;
  create trigger emails_index_addresses after insert on emails
    referencing new table as added for each statement execute function mailroom_index_email_addresses();
  insert into email_addresses (email_id, account, address)
  select e.id, e.account, lower(a)
  from emails e cross join lateral unnest(array_prepend(e.from_address, e.to_addresses)) as a
  where a <> ''
    and e.id >= mailroom_uuidv7_floor(coalesce(
      (select max(run_on) from mailroom_migrations where name = '0172_email_addresses_backfill'), now())
      - interval '1 hour')
  on conflict do nothing;
end $$;
