import type { PoolClient, Queryable } from "../db/pool.ts";
import { appendEvents } from "./events.ts";
import { type EmailRow, toEmailRecord } from "./rows.ts";
import type { EmailRecord } from "./types.ts";

/** One email of an account; another account's email is indistinguishable from a missing one. */
export async function getEmail(db: Queryable, account: string, id: string): Promise<EmailRecord | undefined> {
  const { rows } = await db.query<EmailRow>(`select * from emails where id = $1 and account = $2`, [
    id,
    account,
  ]);
  const row = rows[0];
  return row ? toEmailRecord(row) : undefined;
}

/**
 * Fails every email of a key that has not left yet (queued, scheduled or deferred), with the given reason.
 * Runs in the revoking transaction so the key's state and its mail change together.
 */
export async function failUnsentEmailsOfKey(
  client: PoolClient,
  keyId: string,
  reason: "api_key_revoked" | "api_key_expired",
): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `update emails set status = 'failed', failure_reason = $2, updated_at = now()
     where api_key_id = $1 and status in ('queued', 'scheduled', 'deferred')
     returning id`,
    [keyId, reason],
  );
  const ids = rows.map((r) => r.id);
  await appendEvents(client, ids, "failed", { reason });
  return ids;
}
