-- Up Migration
-- The email log filters by sender and by category (listEmails), and neither had an index: the query walked the
-- account's emails newest first and checked each row, which is fast for a common value but reads the whole
-- history for a rare one or for one that matches nothing. On 10M seeded emails (make bench-scale) a `from` or
-- `category` filter matching nothing took seconds, against the issue 21 goal of a 50 ms p99 (ADR 0018). These
-- indexes find the matching rows in id order directly, as emails_account_status_id does for the status filter.
-- Every accept and every non-HOT delivery update pays for two more entries; the bench reports the cost.
-- Built in the migration's transaction, so the build holds writes to emails while it runs (measured in ADR
-- 0018); on a large table, create them CONCURRENTLY by hand first and this migration only records them.
create index if not exists emails_account_from_id on emails (account, from_address, id desc);
create index if not exists emails_account_category_id on emails (account, category, id desc);
