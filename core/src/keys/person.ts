import type { Pool, Queryable } from "../db/pool.ts";
import { revokeForCause } from "./revoke.ts";
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
    await revokeForCause(pool, key.keyId, "session-idle-timeout", "the session was idle too long");
  }
  const refreshMs = Math.min(60_000, idleTimeoutSeconds * 100);
  if (idleMs < refreshMs) return;
  await pool.query(
    `update api_keys set session_active_at = $2
     where key_id = $1 and revoked_at is null and session_active_at < $2::timestamptz`,
    [key.keyId, now],
  );
}

/** Keeps the provider's (encrypted) refresh token of a person's key, and when their groups were confirmed. */
export async function storePersonRefreshToken(
  db: Queryable,
  keyId: string,
  envelope: Buffer,
  checkedAt: Date,
): Promise<void> {
  await db.query(
    "update api_keys set owner_refresh_token = $2, owner_checked_at = $3 where key_id = $1 and owner_subject is not null",
    [keyId, envelope, checkedAt],
  );
}

/**
 * Claims the re-check of a person's groups when the last is older than `intervalSeconds`: one request of
 * many concurrent ones wins (the others go on), so a rotating refresh token is never presented twice.
 * Returns the encrypted refresh token to use, undefined when not due, not won, or none was issued.
 */
export async function claimPersonRecheck(
  db: Queryable,
  keyId: string,
  now: Date,
  intervalSeconds: number,
): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ owner_refresh_token: Buffer }>(
    `update api_keys set owner_checked_at = $2
     where key_id = $1 and owner_refresh_token is not null and revoked_at is null
       and (owner_checked_at is null or owner_checked_at <= $2::timestamptz - make_interval(secs => $3))
     returning owner_refresh_token`,
    [keyId, now, intervalSeconds],
  );
  return rows[0]?.owner_refresh_token;
}
