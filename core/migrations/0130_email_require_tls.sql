-- Up Migration
-- REQUIRETLS per email (RFC 8689, issue 32 item 4): the email leaves only over TLS whose certificate was
-- verified (MTA-STS, or valid for the MX or relay name), else it is deferred and then fails with that reason.
-- Written once, at accept (core/src/emails/accept.ts); read by the deliver task into the transport's message.
alter table emails add column require_tls boolean not null default false;
