-- Up Migration
-- Fills email_search_texts (0182) for the emails already in the log, then builds its trigram index over the
-- filled table (faster than growing it row by row). Reads emails without holding their writers (a plain
-- insert … select takes no lock that conflicts with sends), and nothing but this writes the new table yet, so
-- the index's build holds nobody. The emails inserted while it runs and until the trigger
-- emails_index_search_text exists (made when core/sql/functions is applied, just after the migrations) are
-- caught up there, from an hour before this migration ran (mailroom_index_email_search_texts.sql).
insert into email_search_texts (email_id, account, search_text)
select id, account,
       mailroom_email_search_text(subject, from_address, to_addresses || cc_addresses || bcc_addresses, message_id_header)
from emails
on conflict do nothing;

-- The pending list bounded as every week's GIN indexes of emails are (ADR 0061: a search reads it whole).
create index if not exists email_search_texts_words on email_search_texts
  using gin (search_text gin_trgm_ops) with (gin_pending_list_limit = 256);
