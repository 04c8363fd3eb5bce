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
 * written only then, so an account without webhooks pays nothing. Shared by every writer of the outbox.
 */
export function subscribedSql(account: string, type: string): string {
  return `exists (select 1 from webhook_endpoints w
    where w.account = ${account} and w.enabled and (cardinality(w.event_types) = 0 or ${type} = any(w.event_types)))`;
}

/** SQL: the `data` of an `email.*` event, from a row `alias` carrying the emails columns. One shape everywhere. */
export function emailEventDataSql(alias: string): string {
  return `jsonb_build_object('emailId', ${alias}.id, 'from', ${alias}.from_header, 'to', ${alias}.to_addresses,
    'subject', ${alias}.subject, 'tags', ${alias}.tags, 'category', ${alias}.category)`;
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

// Timeline entries that are webhook events; `sending` and `rescheduled` are internal steps.
const EMAIL_EVENT_TYPES = new Set([
  "scheduled",
  "queued",
  "delivered",
  "deferred",
  "bounced",
  "failed",
  "canceled",
]);

/**
 * Emits `email.<state>` events for emails that just moved to a state, in the caller's transaction, with the
 * email's id, from, to, subject and tags plus the transition's detail (reason, SMTP response). Built in one
 * statement from the rows themselves, and only for accounts with an endpoint subscribed to that type.
 */
export async function emitEmailEvents(
  client: Pick<PoolClient, "query">,
  emailIds: readonly string[],
  state: string,
  detail: Record<string, unknown>,
): Promise<void> {
  if (emailIds.length === 0 || !EMAIL_EVENT_TYPES.has(state)) return;
  const type = `email.${state}`;
  const { rows } = await client.query<{ id: string }>(
    `insert into webhook_events (id, account, type, stream, data)
     select u.id, e.account, $3, 'email:' || e.id, ${emailEventDataSql("e")} || $4::jsonb
     from unnest($1::uuid[], $2::uuid[]) with ordinality as u(email_id, id, n)
     join emails e on e.id = u.email_id
     where ${subscribedSql("e.account", "$3")}
     order by u.n
     returning id`,
    [emailIds, emailIds.map(() => uuidv7()), type, JSON.stringify(detail)],
  );
  await enqueueFanout(
    client,
    rows.map((r) => r.id),
  );
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
