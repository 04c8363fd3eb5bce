import { recordAuditEvent } from "../audit/record.ts";
import type { Queryable } from "../db/pool.ts";

/**
 * Records, in the audit trail, SMTP logins from one address that failed beyond the throttle's free ones (issue
 * 33 item 4, ADR 0062): who tried (the key id the password named, `-` for none), from where (the peer) and
 * how many failures. The row belongs to the account of the key id when it names one, else to no account (an
 * installation-wide row no tenant sees). The throttle calls it once per address and window, never per guess.
 */
export async function recordSmtpAuthFailures(
  db: Queryable,
  attempt: { peer: string; keyId: string; failures: number },
): Promise<void> {
  const { rows } = attempt.keyId
    ? await db.query<{ account: string }>("select account from api_keys where key_id = $1", [attempt.keyId])
    : { rows: [] };
  await recordAuditEvent(
    db,
    { actor: { kind: "smtp", id: attempt.keyId || "-" }, origin: { ip: attempt.peer } },
    {
      account: rows[0]?.account ?? null,
      action: "smtp.auth_failed",
      target: attempt.keyId || null,
      detail: { failures: attempt.failures },
    },
  );
}
