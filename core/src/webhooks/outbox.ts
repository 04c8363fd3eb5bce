import { v7 as uuidv7 } from "uuid";
import type { PoolClient } from "../db/pool.ts";
import type { OutboxEvent, WebhookStream } from "./types.ts";

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
 * Writes events to the outbox and adds one `webhook_fanout` job for them, inside the caller's transaction and
 * in one round trip (`mailroom_emit_webhook_events`, migration 0011): the events exist exactly when the state
 * change they report commits. Only events some enabled endpoint subscribes to are written, so the send hot
 * path pays nothing for an account without webhooks. Returns the ids of the events written, in order.
 */
export async function emitEvents(client: PoolClient, events: readonly OutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => uuidv7());
  const { rows } = await client.query<{ written: string[] }>({
    name: "mailroom_emit_webhook_events",
    text: "select mailroom_emit_webhook_events($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) as written",
    values: [
      ids,
      events.map((e) => e.account),
      events.map((e) => e.type),
      events.map((e, i) => streamOf(e, ids[i] as string)),
      events.map((e) => JSON.stringify(e.data)),
    ],
  });
  return rows[0]?.written ?? [];
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
