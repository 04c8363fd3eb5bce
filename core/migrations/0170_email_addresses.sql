-- Up Migration
-- The log's search by address prefix (issue 33, ADR 0061): `q` terms with an `@` are prefixes of the sender's
-- or a recipient's address. The trigram index (0143) serves them badly: an address's trigrams (`customer`,
-- `example`, the host) are in nearly every email, so GIN intersects posting lists as long as the log. One row
-- per email and address (the sender and each `to`, lower-cased), in the byte order of "C" so that a prefix is
-- one range of the B-tree `email_addresses_prefix`, whose entries carry the email's id, newest first.
-- Written by the trigger emails_index_addresses (core/sql/functions/mailroom_index_email_addresses.sql) as
-- emails are inserted, whoever inserts them; deleted with their emails as attachments are (ADR 0055: the
-- trigger emails_delete_dependents, and mailroom_drop_email_partitions by a dropped week's id range). Filled
-- for the emails already there by 0172. A new, empty table: its indexes cost nothing to build here.
create table if not exists email_addresses (
  email_id uuid not null,
  account text not null,
  address text collate "C" not null,
  -- Deletes by email and by a week's id range; the probe of one email's addresses.
  primary key (email_id, address)
);
create index if not exists email_addresses_prefix on email_addresses (account, address, email_id desc);
