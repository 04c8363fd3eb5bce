import { newId } from "../db/ids.ts";
import type { Queryable } from "../db/pool.ts";
import type { TraceCarrier } from "../jobs/index.ts";
import type { EmailEvent } from "./types.ts";

/**
 * Appends one event per email id (emails of `account`) to the timelines and emits the matching webhook events
 * (`email.<type>`) in the same transaction, in one round trip (`mailroom_append_email_events`): every
 * transition goes through that function, so none is missed. `trace` is the trace context of the change,
 * which the webhook POSTs continue.
 */
export async function appendEvents(
  db: Queryable,
  account: string,
  emailIds: readonly string[],
  type: string,
  detail: Record<string, unknown> = {},
  trace?: TraceCarrier,
): Promise<void> {
  if (emailIds.length === 0) return;
  const detailJson = JSON.stringify(detail);
  const traceJson = trace ? JSON.stringify(trace) : null;
  await db.query(
    `select mailroom_append_email_events($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[])`,
    [
      emailIds,
      emailIds.map(() => newId()),
      emailIds.map(() => account),
      emailIds.map(() => type),
      emailIds.map(() => detailJson),
      emailIds.map(() => traceJson),
    ],
  );
}

/** The timeline of one email, oldest first. */
export async function listEvents(db: Queryable, emailId: string): Promise<EmailEvent[]> {
  const { rows } = await db.query<EmailEvent>(
    `select type, at, detail from email_events where email_id = $1 order by id`,
    [emailId],
  );
  return rows;
}
