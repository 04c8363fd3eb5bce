import { recordAuditEvent } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Pool } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { failUnsentEmailsOfKey } from "../emails/queries.ts";
import { markKeyRevoked } from "./store.ts";
import type { ApiKeyRecord } from "./types.ts";

/**
 * Revokes a key by its id. In the same transaction every email of the key that has not left yet becomes
 * `failed` with `api_key_revoked`, and, with `by`, the audit row. Returns undefined when no key has that id.
 */
export async function revokeKey(
  pool: Pool,
  keyId: string,
  by?: AuditContext,
): Promise<{ key: ApiKeyRecord; failedEmailIds: string[] } | undefined> {
  return withTransaction(pool, async (client) => {
    const key = await markKeyRevoked(client, keyId);
    if (!key) return undefined;
    const failedEmailIds = await failUnsentEmailsOfKey(client, keyId, "api_key_revoked");
    if (by) {
      const detail = { name: key.name, failedEmails: failedEmailIds.length };
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
