-- Up Migration
-- Issue 20 item 2 and issue 19 item 3.
--
-- An email's envelope recipients are decided once, in TypeScript, when it is accepted: `pending_recipients`
-- is filled then (bare, lower-cased, each once), so the claim function no longer parses address headers.
-- Emails accepted before this migration and not yet sent get the same list here, once, derived as the claim
-- derived it until now.
update emails e
set pending_recipients = array(
  select r from (
    select lower(coalesce(substring(a from '<([^<>]+)>$'), a)) as r, min(i) as first_seen
    from unnest(e.to_addresses || e.cc_addresses || e.bcc_addresses) with ordinality as x(a, i)
    group by 1
  ) d order by first_seen)
where e.pending_recipients is null and e.status in ('scheduled', 'queued', 'deferred', 'sending');

-- The W3C trace context of the change an event reports (the request that accepted an email, the delivery
-- that recorded its outcome), so that the event's webhook POST continues that trace.
alter table webhook_events add column trace jsonb;
alter type mailroom_webhook_claim add attribute event_trace jsonb;

-- Since when the claimed delivery's endpoint has been failing: TypeScript decides a failed attempt's plan
-- (retry, give up, disable) from it, and one SQL function records the attempt, as for successes.
alter type mailroom_webhook_claim add attribute endpoint_failing_since timestamptz;
