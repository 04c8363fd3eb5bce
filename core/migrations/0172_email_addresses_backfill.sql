-- Up Migration
-- Fills email_addresses (0170) for the emails already in the log. Reads emails without holding their writers
-- (a plain insert … select takes no lock that conflicts with sends); the emails inserted while it runs and
-- until the trigger emails_index_addresses exists (it is made when core/sql/functions is applied, just after
-- the migrations) are caught up in that same transaction, from this migration's start
-- (mailroom_index_email_addresses.sql).
insert into email_addresses (email_id, account, address)
select e.id, e.account, lower(a)
from emails e cross join lateral unnest(array_prepend(e.from_address, e.to_addresses)) as a
where a <> ''
-- An address twice in one email (sender and recipient) is one row.
on conflict do nothing;
