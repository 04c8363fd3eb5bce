-- Up Migration
-- Email retention (the worker's purge deletes finished emails past MAILROOM_EMAIL_RETENTION_DAYS, and their
-- webhook events). Deleting rows must not scan other tables row by row:
-- * idempotency_keys.email_id had a cascading foreign key but no index, so each purged email would have
--   scanned the whole idempotency table. The key is purged first anyway (its window, at most 30 days, is
--   shorter than the email's retention: the configuration refuses otherwise), so the constraint goes rather
--   than adding an index that every idempotent accept would pay for.
-- * webhook_deliveries cascades from webhook_events through event_id, the second column of its only
--   matching index; an index of its own lets an event's deliveries be found directly.
alter table idempotency_keys drop constraint idempotency_keys_email_id_fkey;
create index webhook_deliveries_event on webhook_deliveries (event_id);
