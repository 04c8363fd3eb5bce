import { v7 as uuidv7 } from "uuid";
import type { PoolClient } from "../db/pool.ts";
import type { OutboxEvent, WebhookDeliverPayload, WebhookFanoutPayload, WebhookStream } from "./types.ts";

function streamOf(event: OutboxEvent, id: string): string {
  if (event.stream) return event.stream;
  if (typeof event.data.emailId === "string") return `email:${event.data.emailId}`;
  if (typeof event.data.domainId === "string") return `domain:${event.data.domainId}`;
  return `event:${id}`;
}

/**
 * SQL predicate: some enabled endpoint of `account` subscribes to `type` (both SQL expressions). Events are
 * written only then, so an account without webhooks pays nothing. Defined once, in migration 0010.
 */
export function subscribedSql(account: string, type: string): string {
  return `mailroom_endpoint_subscribed(${account}, ${type})`;
}

/** SQL: the `data` of an `email.*` event, from a row `alias` carrying the emails columns (migration 0010). */
export function emailEventDataSql(alias: string): string {
  return `mailroom_email_event_data(${alias}.id, ${alias}.from_header, ${alias}.to_addresses, ${alias}.subject,
    ${alias}.tags, ${alias}.category)`;
}

/**
 * Writes events to the outbox and adds one `webhook_fanout` job for them, inside the caller's transaction:
 * the events exist exactly when the state change they report commits. Returns the ids of the events written
 * (those some endpoint subscribes to), in order.
 */
export async function emitEvents(client: PoolClient, events: readonly OutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => uuidv7());
  // Only events some enabled endpoint subscribes to are written: the send hot path pays nothing for an
  // account without webhooks. `with ordinality` keeps the caller's order in the identity column, which
  // orders deliveries per stream.
  const { rows } = await client.query<{ id: string }>(
    `insert into webhook_events (id, account, type, stream, data)
     select id, a, t, s, d from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[])
       with ordinality as u(id, a, t, s, d, n)
     where ${subscribedSql("u.a", "u.t")}
     order by n
     returning id`,
    [
      ids,
      events.map((e) => e.account),
      events.map((e) => e.type),
      events.map((e, i) => streamOf(e, ids[i] as string)),
      events.map((e) => JSON.stringify(e.data)),
    ],
  );
  const written = new Set(rows.map((r) => r.id));
  const eventIds = ids.filter((id) => written.has(id));
  await enqueueFanout(client, eventIds);
  return eventIds;
}

/** Adds the `webhook_fanout` job for events just written (none: nothing to do). */
export async function enqueueFanout(
  client: Pick<PoolClient, "query">,
  eventIds: readonly string[],
): Promise<void> {
  if (eventIds.length === 0) return;
  const payload: WebhookFanoutPayload = { eventIds: [...eventIds] };
  await client.query(`select graphile_worker.add_job('webhook_fanout', $1::json, max_attempts => 25)`, [
    JSON.stringify(payload),
  ]);
}

/**
 * Wakes streams at `runAt` (default now) with one `webhook_deliver` job per stream, keyed
 * `webhook:<endpoint>:<stream>` so at most one wake-up waits per stream and a later call moves it.
 */
export async function scheduleStreamWakeups(
  client: Pick<PoolClient, "query">,
  streams: readonly WebhookStream[],
  runAt?: Date,
): Promise<void> {
  if (streams.length === 0) return;
  await client.query(
    `select graphile_worker.add_jobs(array(
       select row('webhook_deliver', json_build_object('endpointId', e, 'streams', json_build_array(s)), null,
                  $3::timestamptz, 25, 'webhook:' || e || ':' || s, null, null)::graphile_worker.job_spec
       from unnest($1::uuid[], $2::text[]) as u(e, s)
     ))`,
    [streams.map((s) => s.endpointId), streams.map((s) => s.stream), runAt ?? null],
  );
}

// Streams per fan-out job: one job per stream would cap throughput at graphile-worker's jobs/s.
const STREAMS_PER_JOB = 100;

/**
 * Adds unkeyed `webhook_deliver` jobs covering new deliveries, up to 100 streams of one endpoint per job. A
 * stream whose head waits for a retry is left alone by the job (the head check in claimStreamHead), so
 * batching never lets a new event overtake an older one.
 */
export async function scheduleNewDeliveries(
  client: Pick<PoolClient, "query">,
  streams: readonly WebhookStream[],
): Promise<void> {
  const byEndpoint = new Map<string, string[]>();
  for (const { endpointId, stream } of streams) {
    const list = byEndpoint.get(endpointId) ?? [];
    if (!list.includes(stream)) list.push(stream);
    byEndpoint.set(endpointId, list);
  }
  const payloads: WebhookDeliverPayload[] = [];
  for (const [endpointId, list] of byEndpoint) {
    for (let i = 0; i < list.length; i += STREAMS_PER_JOB) {
      payloads.push({ endpointId, streams: list.slice(i, i + STREAMS_PER_JOB) });
    }
  }
  if (payloads.length === 0) return;
  await client.query(
    `select graphile_worker.add_jobs(array(
       select row('webhook_deliver', p, null, null, 25, null, null, null)::graphile_worker.job_spec
       from unnest($1::json[]) as u(p)
     ))`,
    [payloads.map((p) => JSON.stringify(p))],
  );
}
