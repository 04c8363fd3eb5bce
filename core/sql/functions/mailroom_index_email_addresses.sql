-- The one writer of email_addresses (issue 33, ADR 0061): the sender's and each recipient's address (to, cc
-- and bcc: the log shows all three to whoever reads it) of every email a statement inserts, lower-cased, for
-- the log's search by address prefix (listEmails). A statement trigger on emails, so every insert is indexed
-- whoever makes it: the accept statement (core/src/emails/accept.ts), the previous release's during an
-- upgrade, the benchmarks' seeds. Rows go with their email (mailroom_delete_email_dependents.sql,
-- mailroom_drop_email_partitions).

-- Once, when the live body still indexes the sender and `to` only (before migration 0177): emails' writers
-- are held from here to this transaction's commit, so that no insert runs the old body after the catch-up
-- below has read the log (the lock waits at most migrate's lock timeout, then migrate tries again).
do $$
begin
  if exists (select 1 from pg_proc where proname = 'mailroom_index_email_addresses'
             and prosrc not like '%bcc_addresses%') then
    lock table emails in share row exclusive mode;
    perform set_config('mailroom.index_copies_catch_up', 'on', true);
  end if;
end $$;

create or replace function mailroom_index_email_addresses() returns trigger language plpgsql as $$
begin
  insert into email_addresses (email_id, account, address)
  select n.id, n.account, lower(a)
  from added n
  cross join lateral unnest(array_prepend(n.from_address, n.to_addresses || n.cc_addresses || n.bcc_addresses)) as a
  where a <> ''
  order by 1, 3
  -- An address twice in one email (sender and recipient, to and cc) is one row.
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
  from emails e cross join lateral unnest(array_prepend(e.from_address, e.to_addresses || e.cc_addresses || e.bcc_addresses)) as a
  where a <> ''
    and e.id >= mailroom_uuidv7_floor(coalesce(
      (select max(run_on) from mailroom_migrations where name = '0172_email_addresses_backfill'), now())
      - interval '1 hour')
  on conflict do nothing;
end $$;

-- The Cc and Bcc addresses of the emails inserted since an hour before migration 0177 (which filled those
-- before it) by the old body: once, under the lock taken above.
do $$
begin
  if current_setting('mailroom.index_copies_catch_up', true) is distinct from 'on' then
    return;
  end if;
  insert into email_addresses (email_id, account, address)
  select e.id, e.account, lower(a)
  from emails e cross join lateral unnest(e.cc_addresses || e.bcc_addresses) as a
  where a <> ''
    and e.id >= mailroom_uuidv7_floor(coalesce(
      (select max(run_on) from mailroom_migrations where name = '0177_email_addresses_copies'), now())
      - interval '1 hour')
  on conflict do nothing;
end $$;
