-- Up Migration
-- SMTP submission (issue 16, ADR 0019): a second door into the same accept. The log shows which door an
-- email came through, and a submitted message is kept as the client wrote it (MIME structure, attachments,
-- inline parts and non-ASCII untouched) and sent as such, so it lives in its own table, read only by the
-- worker: the log's listing never loads it.
alter table emails add column source text not null default 'api' check (source in ('api', 'smtp'));

-- A submitted message carries its body in its MIME parts, not in the html/text columns.
alter table emails drop constraint emails_check;
alter table emails add constraint emails_has_content check (html is not null or text is not null or source = 'smtp');

create table email_raw_messages (
  email_id uuid primary key references emails (id) on delete cascade,
  -- The message as submitted, minus its Bcc header; the worker adds Message-ID and Date when absent.
  content bytea not null
);
