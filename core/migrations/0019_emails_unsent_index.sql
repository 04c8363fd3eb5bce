-- Up Migration
-- The backlog gauges (mailroom_emails{status}, the age of the oldest queued and deferred email) read only
-- mail that has not left. A partial index on those rows keeps the scrape's query proportional to the
-- backlog, not to the table: on 1M delivered rows it turned a sequential scan into an index-only scan (ADR
-- 0017). Delivered rows leave the index, so the accept and delivery writes pay for one small entry.
create index emails_unsent on emails (status, id) where status in ('scheduled', 'queued', 'deferred', 'sending');
