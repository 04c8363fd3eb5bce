-- Up Migration
-- Search of the email log (issue 33 item 3, ADR 0061): `GET /v1/emails?q=` finds an account's emails by
-- subject words, recipient or sender (prefix) or Message-ID. An index on `emails` in a migration of its own
-- (migration 0150, which partitions `emails`, carries it over): a trigram GIN index (pg_trgm, a trusted
-- extension any database owner may create) over one lower-cased text per email in which every word,
-- address and the Message-ID starts after a space, so `like '% <term>%'` is "a word or address starting
-- with <term>". The tag part of a search uses `emails_tags`.
create extension if not exists pg_trgm;

-- The searchable text of one email. Defined here, not in core/sql/functions: the index stores its results,
-- so changing it means a new function, a new index and a reindex, in a migration.
create or replace function mailroom_email_search_text(p_subject text, p_from text, p_to text[], p_message_id text)
returns text language sql immutable parallel safe as $$
  select ' ' || lower(regexp_replace(p_subject, '[^[:alnum:]@.+_-]+', ' ', 'g')) || ' ' || lower(p_from) || ' '
         || lower(array_to_string(p_to, ' ')) || ' ' || lower(p_message_id)
$$;

create index if not exists emails_search on emails
  using gin (mailroom_email_search_text(subject, from_address, to_addresses, message_id_header) gin_trgm_ops);
