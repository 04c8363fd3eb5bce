import { withAudit } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Pool, Queryable } from "../db/pool.ts";
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
 * False when another policy already governs the account: one policy per account. With `by`, settings that
 * differ from the row's are recorded in the audit trail in the same transaction (a resync that changes
 * nothing records nothing).
 */
export async function applyAccountPolicy(
  db: Pool | Queryable,
  account: string,
  policy: string,
  settings: AccountPolicySettings | null,
  by?: AuditContext,
): Promise<boolean> {
  const outcome = await withAudit(
    db,
    by,
    (q) => writePolicy(q, account, policy, settings),
    ({ changed }) =>
      changed
        ? {
            account,
            action: "account.policy_applied",
            target: policy,
            detail: { settings: settings ?? "cleared" },
          }
        : undefined,
  );
  return outcome.applied;
}

async function writePolicy(
  db: Queryable,
  account: string,
  policy: string,
  settings: AccountPolicySettings | null,
) {
  const s = settings ?? {};
  // Its own statement: an update does not see a row its own statement's function inserted.
  await db.query("select mailroom_ensure_account($1)", [account]);
  const { rows } = await db.query<{ changed: boolean }>(
    `with cur as (
       select account, (emails_per_second, daily_send_limit, batch_size, retention_days, allowed_categories,
                        reputation, policy)::text as before
       from accounts where account = $1 and (policy is null or policy = $2) for update
     ), upd as (
       update accounts a set emails_per_second = $3, daily_send_limit = $4, batch_size = $5, retention_days = $6,
                             allowed_categories = $7, reputation = $8, policy = case when $9 then $2 end
       from cur where a.account = cur.account
       returning cur.before, (a.emails_per_second, a.daily_send_limit, a.batch_size, a.retention_days,
                              a.allowed_categories, a.reputation, a.policy)::text as after
     )
     select before is distinct from after as changed from upd`,
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
  return { applied: rows.length > 0, changed: rows[0]?.changed ?? false };
}

/** The account's row by name (the operator's view of its AccountPolicy's account); undefined without one. */
export async function getAccount(db: Queryable, account: string): Promise<AccountRecord | undefined> {
  const { rows } = await db.query<AccountColumns>(
    `select ${accountColumns("a")} from accounts a where account = $1`,
    [account],
  );
  return rows[0] ? toAccountRecord(rows[0]) : undefined;
}
