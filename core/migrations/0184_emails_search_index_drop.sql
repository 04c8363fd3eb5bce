-- Up Migration
-- The trigram index of `emails` (0143) is replaced by email_search_texts' (0182, 0183): dropped, so that a
-- status change no longer writes the email's trigrams again. The drop takes `emails`' exclusive lock for a
-- moment; it waits at most migrate's lock timeout, then migrate tries again (ADR 0042). The previous
-- release's word searches, until its pods are replaced, walk the account's log newest first without it
-- (a rare word may then time out); its sends and deliveries are unaffected.
drop index if exists emails_search;
