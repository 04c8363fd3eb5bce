-- Up Migration
-- The log's search by Message-ID (issue 33, ADR 0061): a `q` term `<…>` is one email's Message-ID, of any
-- shape (the trigram index found only Mailroom's own `<uuid@host>` fast, by the primary key). A hash index:
-- equality is all it answers, and its entries are a 4-byte hash whatever the Message-ID's length. On the
-- partitioned parent, so every weekly partition gets its copy (ADR 0055).
-- Built in the migration's transaction, so the build holds writes to emails while it runs (about a minute per
-- 10M emails on the bench's machine); on a large installation create it by hand first without holding
-- writes, as ADR 0061 shows (`create index … on only emails`, then each partition's index `concurrently`,
-- then `alter index … attach partition`), and this migration only records it.
create index if not exists emails_message_id on emails using hash (lower(message_id_header));
