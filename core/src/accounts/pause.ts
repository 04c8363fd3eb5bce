import { recordAuditEvent } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Pool, PoolClient } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { emitEvents } from "../webhooks/outbox.ts";

/**
 * Pauses the account's sending (issue 31 item 2): new sends are refused with `sending_paused` and the
 * deliveries of mail already accepted are held by the claim (`mailroom_claim_emails`), not lost. Writes the
 * `account.paused` webhook event in the same transaction. `by` names who paused it (`reputation-guard`, a key
 * id, an AccountPolicy); `audit`, when given, records it in the audit trail in the same transaction. False
 * when the account was already paused (or has no row): nothing changes.
 */
export async function pauseAccount(
  pool: Pool,
  account: string,
  pause: { reason: string; by: string; now: Date; audit?: AuditContext | undefined },
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const { rowCount } = await client.query(
      `update accounts set sending_status = 'paused', paused_reason = $2, paused_by = $3, paused_at = $4
       where account = $1 and sending_status = 'active'`,
      [account, pause.reason, pause.by, pause.now],
    );
    if (!rowCount) return false;
    await emitEvents(client, [
      { account, type: "account.paused", data: { account, by: pause.by, reason: pause.reason } },
    ]);
    if (pause.audit) {
      const detail = { reason: pause.reason };
      await recordAuditEvent(client, pause.audit, {
        account,
        action: "account.paused",
        target: account,
        detail,
      });
    }
    return true;
  });
}

/**
 * Resumes a paused account: records who resumed it and when, gives every held email a `deliver` job due now
 * (`mailroom_release_held_emails`, after the account's row is updated: the claim's lock order) and writes the
 * `account.resumed` event, in one transaction. Returns how many held emails were released, or undefined when
 * the account was not paused.
 */
export async function resumeAccount(
  pool: Pool,
  account: string,
  resume: { by: string; now: Date; audit?: AuditContext | undefined },
): Promise<number | undefined> {
  return withTransaction(pool, (client) => resumeIn(client, account, resume));
}

async function resumeIn(
  client: PoolClient,
  account: string,
  resume: { by: string; now: Date; audit?: AuditContext | undefined },
) {
  const { rowCount } = await client.query(
    `update accounts set sending_status = 'active', paused_reason = null, paused_by = null, paused_at = null,
                         resumed_at = $3, resumed_by = $2
     where account = $1 and sending_status = 'paused'`,
    [account, resume.by, resume.now],
  );
  if (!rowCount) return undefined;
  const { rows } = await client.query<{ released: number }>(
    "select mailroom_release_held_emails($1) as released",
    [account],
  );
  const released = rows[0]?.released ?? 0;
  await emitEvents(client, [
    { account, type: "account.resumed", data: { account, by: resume.by, released } },
  ]);
  if (resume.audit) {
    const detail = { released };
    await recordAuditEvent(client, resume.audit, {
      account,
      action: "account.resumed",
      target: account,
      detail,
    });
  }
  return released;
}
