import { v7 as uuidv7 } from "uuid";
import type { PoolClient } from "../db/pool.ts";
import type { OutboxEvent } from "./types.ts";

function streamOf(event: OutboxEvent, id: string): string {
  if (event.stream) return event.stream;
  if (typeof event.data.emailId === "string") return `email:${event.data.emailId}`;
  if (typeof event.data.domainId === "string") return `domain:${event.data.domainId}`;
  return `event:${id}`;
}

/**
 * Writes events to the outbox inside the caller's transaction, in one round trip, through the outbox's one
 * writer (`mailroom_emit_webhook_events`, which adds their `webhook_fanout` job): the events exist exactly
 * when the state change they report commits. Only events some enabled endpoint subscribes to are written,
 * so an account without webhooks pays nothing. Returns the ids of the events written, in order.
 */
export async function emitEvents(client: PoolClient, events: readonly OutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => uuidv7());
  const { rows } = await client.query<{ written: string[] }>({
    name: "mailroom_emit_webhook_events",
    text: `select mailroom_emit_webhook_events($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[],
                                               $6::jsonb[]) as written`,
    values: [
      ids,
      events.map((e) => e.account),
      events.map((e) => e.type),
      events.map((e, i) => streamOf(e, ids[i] as string)),
      events.map((e) => JSON.stringify(e.data)),
      events.map((e) => (e.trace ? JSON.stringify(e.trace) : null)),
    ],
  });
  return rows[0]?.written ?? [];
}
