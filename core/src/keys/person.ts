import type { Pool } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { revokeKey } from "./revoke.ts";
import type { ApiKeyRecord } from "./types.ts";

/**
 * A person's key (ADR 0063) is a session: each request proves it alive, and a key idle longer than the
 * timeout is revoked at its next use (answered `api_key_revoked`, as any revoked key), so a tab left open
 * overnight cannot be picked up in the morning. Machines' keys (no owner) are untouched.
 * The session clock is written at most once per tenth of the timeout (bounded to a minute), not per request.
 */
export async function checkPersonSession(
  pool: Pool,
  key: ApiKeyRecord,
  idleTimeoutSeconds: number,
  now: Date,
): Promise<void> {
  if (!key.owner || !key.sessionActiveAt) return;
  const idleMs = now.getTime() - key.sessionActiveAt.getTime();
  if (idleMs > idleTimeoutSeconds * 1000) {
    await revokeKey(pool, key.keyId);
    throw new MailroomError(
      "api_key_revoked",
      "This API key has been revoked: the session was idle too long.",
    );
  }
  const refreshMs = Math.min(60_000, idleTimeoutSeconds * 100);
  if (idleMs < refreshMs) return;
  await pool.query(
    `update api_keys set session_active_at = $2
     where key_id = $1 and revoked_at is null and session_active_at < $2::timestamptz`,
    [key.keyId, now],
  );
}
