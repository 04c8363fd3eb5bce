-- The one writer of email_search_texts (ADR 0061): the searchable text of every email a statement inserts
-- (mailroom_email_search_text: the subject's words, the sender, every recipient, to, cc and bcc, as the address
-- search has them, and the Message-ID), for the log's word search (listEmails). A statement trigger on emails,
-- as for email_addresses, so every insert is indexed whoever makes it; an email's row is written once and
-- never updated: the text's columns do not change after accept, and a status change no longer touches the
-- search (it did while the trigram index was on emails).
-- Rows go with their email (mailroom_delete_email_dependents.sql, mailroom_drop_email_partitions).
create or replace function mailroom_index_email_search_texts() returns trigger language plpgsql as $$
begin
  insert into email_search_texts (email_id, account, search_text)
  select n.id, n.account,
         mailroom_email_search_text(n.subject, n.from_address, n.to_addresses || n.cc_addresses || n.bcc_addresses,
                                    n.message_id_header)
  from added n
  order by 1;
  return null;
end $$;

-- Made once. The emails inserted between migration 0183's fill and this (the previous release keeps
-- accepting) are caught up here, in the transaction that makes the trigger: it holds emails' writers from now
-- to its commit, so none is missed. Emails from an hour before 0183 ran on (pods' clocks, long transactions);
-- those already there are skipped.
do $$
begin
  if exists (select 1 from pg_trigger where tgrelid = 'emails'::regclass and tgname = 'emails_index_search_text') then
    return;
  end if;
  lock table emails in share row exclusive mode;
  create trigger emails_index_search_text after insert on emails
    referencing new table as added for each statement execute function mailroom_index_email_search_texts();
  insert into email_search_texts (email_id, account, search_text)
  select e.id, e.account,
         mailroom_email_search_text(e.subject, e.from_address, e.to_addresses || e.cc_addresses || e.bcc_addresses,
                                    e.message_id_header)
  from emails e
  where e.id >= mailroom_uuidv7_floor(coalesce(
      (select max(run_on) from mailroom_migrations where name = '0183_email_search_texts_backfill'), now())
      - interval '1 hour')
  on conflict do nothing;
end $$;
