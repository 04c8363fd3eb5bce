-- Up Migration
-- Receivers' TLS policies not applied to an email (issue 32): its sessions use opportunistic TLS, any
-- certificate or none, whatever the recipient domain's MTA-STS or DANE say, and are reported as such.
-- 'tls-report': the daily TLS report's own email (RFC 8460 §5.3: delivered despite TLS failures, its sessions
--   left out of the next report); set only by core/src/tls-reports/send.ts, no API or SMTP input reaches it.
-- 'tls-required-no': the message carries `TLS-Required: No` (RFC 8689 §5), unless it also requires TLS.
-- Written once, at accept (core/src/emails/accept.ts); read by the deliver task into the transport's message.
alter table emails add column tls_policy_exempt text
  constraint emails_tls_policy_exempt_check check (tls_policy_exempt in ('tls-report', 'tls-required-no'));
