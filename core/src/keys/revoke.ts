import { recordAuditEvent } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Pool, PoolClient } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { failUnsentEmailsOfKey } from "../emails/queries.ts";
import { MailroomError } from "../errors/index.ts";
import { markKeyRevoked } from "./store.ts";
import type { ApiKeyRecord } from "./types.ts";

/**
 * What an API caller may revoke (`POST /v1/keys/{keyId}/revoke`, ADR 0069): only a key of its own account
 * (another account's is `not_found`, as if it did not exist), not one an ApiKey resource declares (Git would
 * still declare it: `managed_by_operator`, delete the resource), and not the calling key itself (`conflict`).
 */
export interface RevokeGuard {
  account: string;
  callerKeyId: string;
}

/**
 * Revokes a key by its id: the one path of the CLI, the operator, a person's sign-out and the API. In the same
 * transaction every email of the key that has not left yet becomes `failed` with `api_key_revoked`, and, with
 * `by`, the audit row. Returns undefined when no key has that id (or, with `guard`, none in its account).
 * With `guard`, revoking a key already revoked changes nothing and records nothing. `reason`, when Mailroom
 * revokes a key itself, is kept and told to every later use of the key (`authenticate.ts`).
 */
export async function revokeKey(
  pool: Pool,
  keyId: string,
  by?: AuditContext,
  guard?: RevokeGuard,
  reason?: string,
): Promise<{ key: ApiKeyRecord; failedEmailIds: string[] } | undefined> {
  return withTransaction(pool, async (client) => {
    const already = guard ? await checkGuard(client, keyId, guard) : undefined;
    if (already === "missing") return undefined;
    const key = await markKeyRevoked(client, keyId, reason);
    if (!key) return undefined;
    if (already === "revoked") return { key, failedEmailIds: [] };
    const failedEmailIds = await failUnsentEmailsOfKey(client, keyId, "api_key_revoked");
    if (by) {
      const detail = { name: key.name, failedEmails: failedEmailIds.length, ...(reason ? { reason } : {}) };
      await recordAuditEvent(client, by, {
        account: key.account,
        action: "key.revoked",
        target: keyId,
        detail,
      });
    }
    return { key, failedEmailIds };
  });
}

/** The answer to any use of a revoked key: with why, when Mailroom revoked it itself (`revokeForCause`). */
export function keyRevokedError(reason?: string | null): MailroomError {
  return new MailroomError("api_key_revoked", `This API key has been revoked${reason ? `: ${reason}` : ""}.`);
}

/**
 * Mailroom revoking a person's key itself (`part`: what decided, e.g. `oidc-recheck`): revoked with why, in
 * the audit trail as a system change, and the request that found it answered as every later use will be.
 */
export async function revokeForCause(
  pool: Pool,
  keyId: string,
  part: string,
  reason: string,
): Promise<never> {
  await revokeKey(pool, keyId, { actor: { kind: "system", id: part } }, undefined, reason);
  throw keyRevokedError(reason);
}

/** The key's row locked, judged against the guard: throws, or says whether it is missing or revoked already. */
async function checkGuard(
  client: PoolClient,
  keyId: string,
  guard: RevokeGuard,
): Promise<"missing" | "revoked" | "active"> {
  const { rows } = await client.query<{ managed_by: string; revoked: boolean }>(
    `select managed_by, revoked_at is not null as revoked from api_keys
     where key_id = $1 and account = $2 for update`,
    [keyId, guard.account],
  );
  const row = rows[0];
  if (!row) return "missing";
  if (row.managed_by === "operator") {
    throw new MailroomError(
      "managed_by_operator",
      `Key ${keyId} is declared by an ApiKey resource: delete the resource to revoke it.`,
    );
  }
  if (keyId === guard.callerKeyId) {
    throw new MailroomError(
      "conflict",
      "A key cannot revoke itself: revoke it with another key holding the `keys` scope, or sign out (a " +
        "person's key is revoked at sign-out).",
    );
  }
  return row.revoked ? "revoked" : "active";
}
