-- Up Migration
-- The mailbox simulator (issue 30 item 3, ADR 0049): an email whose every envelope recipient is on the
-- simulator domain is simulator mail. It goes through every state, event and suppression as real mail does,
-- and reputation figures (per-account bounce and complaint rates) leave it out with `where not simulated`.
-- Set once, at accept (core/src/emails/accept.ts); never changed.
alter table emails add column simulated boolean not null default false;
