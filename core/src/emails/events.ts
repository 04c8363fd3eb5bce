import type { Queryable } from "../db/pool.ts";
import { emitEmailEvents } from "../webhooks/outbox.ts";
import type { EmailEvent } from "./types.ts";

/**
 * Appends one event per email id to the timelines, in a single statement, and emits the matching webhook
 * events (`email.<type>`) in the same transaction: every transition goes through here, so none is missed.
 */
export async function appendEvents(
  db: Queryable,
  emailIds: readonly string[],
  type: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  if (emailIds.length === 0) return;
  await db.query(
    `insert into email_events (email_id, type, detail) select unnest($1::uuid[]), $2, $3::jsonb`,
    [emailIds, type, JSON.stringify(detail)],
  );
  await emitEmailEvents(db, emailIds, type, detail);
}

/** The timeline of one email, oldest first. */
export async function listEvents(db: Queryable, emailId: string): Promise<EmailEvent[]> {
  const { rows } = await db.query<EmailEvent>(
    `select type, at, detail from email_events where email_id = $1 order by id`,
    [emailId],
  );
  return rows;
}
