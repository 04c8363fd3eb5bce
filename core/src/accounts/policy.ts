import type { Queryable } from "../db/pool.ts";
import type { ReputationThresholds } from "../reputation/thresholds.ts";
import { type AccountColumns, type AccountRecord, accountColumns, toAccountRecord } from "./record.ts";

/** What an AccountPolicy declares (issue 31 item 1); each absent setting means no limit or the default. */
export interface AccountPolicySettings {
  emailsPerSecond?: number | undefined;
  emailsPerDay?: number | undefined;
  batchSize?: number | undefined;
  retentionDays?: number | undefined;
  allowedCategories?: string[] | undefined;
  reputation?: Partial<ReputationThresholds> | undefined;
}

/**
 * Writes an AccountPolicy's settings onto its account's row (adding the row if the account is new), naming
 * the policy (`namespace/name`) that declared them; `settings` null clears them (the policy was deleted).
 * False when another policy already governs the account: one policy per account.
 */
export async function applyAccountPolicy(
  db: Queryable,
  account: string,
  policy: string,
  settings: AccountPolicySettings | null,
): Promise<boolean> {
  const s = settings ?? {};
  // Its own statement: an update does not see a row its own statement's function inserted.
  await db.query("select mailroom_ensure_account($1)", [account]);
  const { rowCount } = await db.query(
    `update accounts set emails_per_second = $3, daily_send_limit = $4, batch_size = $5, retention_days = $6,
                         allowed_categories = $7, reputation = $8, policy = case when $9 then $2 end
     where account = $1 and (policy is null or policy = $2)`,
    [
      account,
      policy,
      s.emailsPerSecond ?? null,
      s.emailsPerDay ?? null,
      s.batchSize ?? null,
      s.retentionDays ?? null,
      s.allowedCategories ?? null,
      s.reputation ? JSON.stringify(s.reputation) : null,
      settings !== null,
    ],
  );
  return (rowCount ?? 0) > 0;
}

/** The account's row by name (the operator's view of its AccountPolicy's account); undefined without one. */
export async function getAccount(db: Queryable, account: string): Promise<AccountRecord | undefined> {
  const { rows } = await db.query<AccountColumns>(
    `select ${accountColumns("a")} from accounts a where account = $1`,
    [account],
  );
  return rows[0] ? toAccountRecord(rows[0]) : undefined;
}
