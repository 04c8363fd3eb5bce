-- Deletes the timeline of every email a statement deleted, in one statement (trigger emails_delete_timelines,
-- ADR 0043): what the foreign key's ON DELETE CASCADE did one email at a time, which against
-- the partitioned email_events costs 3-4x a plain table's cascade. The ids as one array let each week's
-- partition be probed by its index and the weeks none of them is in be skipped; a week already dropped costs
-- nothing.
create or replace function mailroom_delete_email_timelines() returns trigger language plpgsql as $$
begin
  delete from email_events where email_id = any (array(select id from gone));
  return null;
end $$;
create or replace trigger emails_delete_timelines after delete on emails
  referencing old table as gone for each statement execute function mailroom_delete_email_timelines();
