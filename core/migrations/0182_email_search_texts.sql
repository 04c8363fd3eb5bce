-- Up Migration
-- The log's word search, off `emails` (ADR 0061, "What the search costs every accepted email"): the trigram
-- index over mailroom_email_search_text (0143) was an index of `emails`, whose status changes are never HOT
-- updates (status is indexed), so every claim and every record of an attempt inserted the email's ~60
-- trigrams into it again, with the expression evaluated anew: Postgres's CPU per delivered email doubled.
-- One row per email instead, written once as it is inserted (the trigger emails_index_search_text,
-- core/sql/functions/mailroom_index_email_search_texts.sql) and never updated: the same text, stored, and its
-- trigram index (0183). Deleted with its email as email_addresses' rows are (ADR 0055). A new, empty table.
create table if not exists email_search_texts (
  email_id uuid not null primary key,
  account text not null,
  -- mailroom_email_search_text(subject, from_address, to_addresses || cc_addresses || bcc_addresses,
  -- message_id_header) of the email: every recipient's words, as the address search has them (0177).
  search_text text not null
);
