-- Deletes what refers to the emails a statement deleted, in one statement per table (trigger
-- emails_delete_dependents, ADR 0055): attachments, raw messages and sandbox captures, what their foreign keys'
-- ON DELETE CASCADE did before emails was partitioned (migration 0152 dropped those keys, which a dropped
-- week could not go past), and the addresses and texts the search indexes (email_addresses,
-- email_search_texts, ADR 0061).
-- The timeline has its own trigger (mailroom_delete_email_timelines).
create or replace function mailroom_delete_email_dependents() returns trigger language plpgsql as $$
declare
  v_ids uuid[] := array(select id from gone);
begin
  delete from email_attachments where email_id = any (v_ids);
  delete from email_addresses where email_id = any (v_ids);
  delete from email_search_texts where email_id = any (v_ids);
  delete from email_raw_messages where email_id = any (v_ids);
  delete from sandbox_messages where email_id = any (v_ids);
  return null;
end $$;
create or replace trigger emails_delete_dependents after delete on emails
  referencing old table as gone for each statement execute function mailroom_delete_email_dependents();
