-- Up Migration
-- The log's search by address prefix finds Cc and Bcc recipients too (issue 33 item 2, ADR 0061): a recipient
-- is a recipient, and the log already shows both lists to whoever reads it. Fills email_addresses with the Cc
-- and Bcc addresses of the emails already in the log, reading emails without holding their writers (a plain
-- insert … select); those inserted while it runs and until the trigger's body indexes them (core/sql/functions
-- is applied just after the migrations) are caught up there, once, from an hour before this migration ran
-- (mailroom_index_email_addresses.sql).
insert into email_addresses (email_id, account, address)
select e.id, e.account, lower(a)
from emails e cross join lateral unnest(e.cc_addresses || e.bcc_addresses) as a
where a <> '' and cardinality(e.cc_addresses || e.bcc_addresses) > 0
-- An address twice in one email (a recipient in to and in cc, say) is one row.
on conflict do nothing;
