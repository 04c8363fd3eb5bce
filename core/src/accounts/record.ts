/**
 * An account's settings and state (issue 35, ADR 0028): one row per account in `accounts`, returned by the
 * authentication statement with the key. Null settings mean "the installation's default".
 */
export interface AccountRecord {
  account: string;
  createdAt: Date;
  /** Reserved (ADR 0028): a sandboxed account's mail is captured, not delivered. */
  sandbox: boolean;
  /** A paused account may not send and its accepted mail is held; `paused` says who paused it, when and why. */
  sendingStatus: "active" | "paused";
  paused: { at: Date; by: string | null; reason: string | null } | null;
  /** The last resume: who and when; null: never resumed. */
  resumed: { at: Date; by: string | null } | null;
  /** Requests per second for all the account's keys together; null: `MAILROOM_RATE_LIMIT_PER_ACCOUNT`. */
  rateLimitPerSecond: number | null;
  /** Emails accepted per UTC day, both doors together; null: no quota (core/src/accounts/quota.ts). */
  dailySendLimit: number | null;
  /** Emails accepted per second, both doors together; null: no quota. */
  emailsPerSecond: number | null;
  /** Emails per batch request; null: the installation's `MAILROOM_BATCH_MAX`. */
  batchSize: number | null;
  /** Categories the account may send with; null: any. */
  allowedCategories: string[] | null;
  /** Reputation thresholds the AccountPolicy declared (core/src/reputation); null: the defaults. */
  reputation: Record<string, unknown> | null;
  /** The AccountPolicy (`namespace/name`) that declared these settings; null: none. */
  policy: string | null;
  /** Reserved (ADR 0028): days finished emails are kept; null: `MAILROOM_EMAIL_RETENTION_DAYS`. */
  retentionDays: number | null;
}

/** The `accounts` columns as a statement that joins the table (as `alias`) selects them, prefixed `acct_`. */
export function accountColumns(alias: string): string {
  return [
    "account",
    "created_at",
    "sandbox",
    "sending_status",
    "paused_reason",
    "paused_at",
    "paused_by",
    "rate_limit_per_second",
    "daily_send_limit",
    "retention_days",
    "emails_per_second",
    "batch_size",
    "allowed_categories",
    "reputation",
    "policy",
    "resumed_at",
    "resumed_by",
  ]
    .map((column) => `${alias}.${column} as acct_${column}`)
    .join(", ");
}

/** A row's `acct_` columns, as `accountColumns` selected them. */
export interface AccountColumns {
  acct_account: string;
  acct_created_at: Date;
  acct_sandbox: boolean;
  acct_sending_status: AccountRecord["sendingStatus"];
  acct_paused_reason: string | null;
  acct_paused_at: Date | null;
  acct_paused_by: string | null;
  acct_rate_limit_per_second: number | null;
  acct_daily_send_limit: number | null;
  acct_retention_days: number | null;
  acct_emails_per_second: number | null;
  acct_batch_size: number | null;
  acct_allowed_categories: string[] | null;
  acct_reputation: Record<string, unknown> | null;
  acct_policy: string | null;
  acct_resumed_at: Date | null;
  acct_resumed_by: string | null;
}

/** The account of a row that selected `accountColumns`. */
export function toAccountRecord(row: AccountColumns): AccountRecord {
  return {
    account: row.acct_account,
    createdAt: row.acct_created_at,
    sandbox: row.acct_sandbox,
    sendingStatus: row.acct_sending_status,
    paused: row.acct_paused_at
      ? { at: row.acct_paused_at, by: row.acct_paused_by, reason: row.acct_paused_reason }
      : null,
    resumed: row.acct_resumed_at ? { at: row.acct_resumed_at, by: row.acct_resumed_by } : null,
    rateLimitPerSecond: row.acct_rate_limit_per_second,
    dailySendLimit: row.acct_daily_send_limit,
    retentionDays: row.acct_retention_days,
    emailsPerSecond: row.acct_emails_per_second,
    batchSize: row.acct_batch_size,
    allowedCategories: row.acct_allowed_categories,
    reputation: row.acct_reputation,
    policy: row.acct_policy,
  };
}
