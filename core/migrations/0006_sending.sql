-- Up Migration
-- The full send request (issue 3): cc/bcc/reply-to, custom headers, tags, attachments, and what the email
-- log filters on.
alter table emails
  add column from_address text not null default '',
  add column cc_addresses text[] not null default '{}',
  add column bcc_addresses text[] not null default '{}',
  add column reply_to text[] not null default '{}',
  add column custom_headers jsonb not null default '{}',
  add column tags jsonb not null default '[]';

create table email_attachments (
  email_id uuid not null references emails (id) on delete cascade,
  position integer not null,
  filename text not null,
  content_type text not null,
  content_id text,
  content bytea not null,
  primary key (email_id, position)
);

-- The email log's filters: each keeps a filtered page an index scan in id (creation) order.
create index emails_account_id on emails (account, id desc);
create index emails_account_status_id on emails (account, status, id desc);
create index emails_to on emails using gin (to_addresses);
create index emails_tags on emails using gin (tags jsonb_path_ops);
