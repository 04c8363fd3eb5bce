-- Up Migration
-- When an endpoint first answered 2xx (issue 26): a failed attempt keeps a response excerpt only for an
-- endpoint that has, so a URL aimed at an internal service that never spoke the webhook protocol (reachable
-- through an allow-list) cannot be read back through the deliveries API (ADR 0027). Endpoints that answered
-- 2xx before this migration are found in their attempts.
alter table webhook_endpoints add column answered_2xx_at timestamptz;
update webhook_endpoints e set answered_2xx_at = a.first
from (select endpoint_id, min(at) as first from webhook_attempts
      where status_code between 200 and 299 group by endpoint_id) a
where a.endpoint_id = e.id;
