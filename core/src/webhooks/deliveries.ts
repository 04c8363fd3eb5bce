import { recordAuditEvent } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import { isUuid } from "../db/ids.ts";
import type { Pool, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { enqueueStreamWakeups } from "../jobs/index.ts";
import { getEndpoint } from "./store.ts";
import type { DeliveryState, LastAttempt, WebhookAttempt, WebhookDelivery } from "./types.ts";

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

const SELECT = `select d.id, d.endpoint_id, d.event_id, v.type as event_type, d.state, d.attempts, d.next_attempt_at,
                       d.last_status_code, d.last_error, d.created_at, d.delivered_at
                from webhook_deliveries d join webhook_events v on v.id = d.event_id`;

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.state === "pending" ? row.next_attempt_at : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

const notFound = () => new MailroomError("not_found", "No delivery with this id for this endpoint.");

/**
 * An endpoint's deliveries, newest first, `limit` at a time; `after` is the last id of the previous page.
 * The endpoint must belong to the account (else `not_found`).
 */
export async function listDeliveries(
  db: Queryable,
  account: string,
  endpointId: string,
  options: { limit?: number; after?: string; state?: DeliveryState } = {},
): Promise<{ data: WebhookDelivery[]; hasMore: boolean }> {
  await getEndpoint(db, account, endpointId);
  if (options.after !== undefined && !isUuid(options.after)) {
    throw new MailroomError("validation_error", "after: not a delivery id");
  }
  const limit = options.limit ?? 50;
  const { rows } = await db.query<DeliveryRow>(
    `${SELECT}
     where d.endpoint_id = $1 and ($2::text is null or d.state = $2)
       and ($3::uuid is null or (d.created_at, d.id) < (select created_at, id from webhook_deliveries where id = $3))
     order by d.created_at desc, d.id desc limit $4`,
    [endpointId, options.state ?? null, options.after ?? null, limit + 1],
  );
  return { data: rows.slice(0, limit).map(toDelivery), hasMore: rows.length > limit };
}

/** One delivery of the account's endpoint with every attempt made, oldest first. */
export async function getDelivery(
  db: Queryable,
  account: string,
  endpointId: string,
  deliveryId: string,
): Promise<{ delivery: WebhookDelivery; attempts: WebhookAttempt[] }> {
  await getEndpoint(db, account, endpointId);
  if (!isUuid(deliveryId)) throw notFound();
  const { rows } = await db.query<DeliveryRow>(`${SELECT} where d.endpoint_id = $1 and d.id = $2`, [
    endpointId,
    deliveryId,
  ]);
  const row = rows[0];
  if (!row) throw notFound();
  const { rows: attempts } = await db.query<{
    attempt: number;
    at: Date;
    duration_ms: number;
    status_code: number | null;
    response_excerpt: string | null;
    error: string | null;
    next_attempt_at: Date | null;
  }>(`select * from webhook_attempts where delivery_id = $1 order by id`, [deliveryId]);
  return {
    delivery: toDelivery(row),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: a.at,
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      responseExcerpt: a.response_excerpt,
      error: a.error,
      nextAttemptAt: a.next_attempt_at,
    })),
  };
}

/**
 * The most recent attempt to deliver anything to an endpoint (the last one recorded), or undefined before the
 * first: one index probe (`webhook_attempts_endpoint`), however long the endpoint's history. No account
 * check: callers reach the endpoint id through its owner already.
 */
export async function getLastAttempt(db: Queryable, endpointId: string): Promise<LastAttempt | undefined> {
  const { rows } = await db.query<{
    delivery_id: string;
    event_id: string;
    event_type: string;
    at: Date;
    status_code: number | null;
    error: string | null;
  }>(
    `select a.delivery_id, d.event_id, v.type as event_type, a.at, a.status_code, a.error
     from (select * from webhook_attempts where endpoint_id = $1 order by id desc limit 1) a
     join webhook_deliveries d on d.id = a.delivery_id
     join webhook_events v on v.id = d.event_id`,
    [endpointId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    eventType: row.event_type,
    at: row.at,
    statusCode: row.status_code,
    error: row.error,
    succeeded: row.status_code !== null && row.status_code >= 200 && row.status_code < 300,
  };
}

/**
 * Sends a delivery again from the start of the retry schedule, whatever its state. The endpoint must be
 * enabled (`conflict` otherwise). Replaying is not a change of the endpoint, so operator-declared ones allow it.
 */
export async function replayDelivery(
  pool: Pool,
  account: string,
  endpointId: string,
  deliveryId: string,
  by?: AuditContext,
): Promise<WebhookDelivery> {
  const endpoint = await getEndpoint(pool, account, endpointId);
  if (!endpoint.enabled) {
    throw new MailroomError("conflict", "This webhook endpoint is disabled; enable it before replaying.");
  }
  if (!isUuid(deliveryId)) throw notFound();
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ stream: string }>(
      `update webhook_deliveries
       set state = 'pending', schedule_step = 0, next_attempt_at = now(), lease_until = null, updated_at = now()
       where endpoint_id = $1 and id = $2 returning stream`,
      [endpointId, deliveryId],
    );
    const stream = rows[0]?.stream;
    if (stream === undefined) throw notFound();
    await enqueueStreamWakeups(client, [{ endpointId, stream }]);
    const replayed = {
      account,
      action: "webhook.delivery_replayed",
      target: endpointId,
      detail: { deliveryId },
    } as const;
    if (by) await recordAuditEvent(client, by, replayed);
    const { rows: shown } = await client.query<DeliveryRow>(`${SELECT} where d.id = $1`, [deliveryId]);
    return toDelivery(shown[0] as DeliveryRow);
  });
}
