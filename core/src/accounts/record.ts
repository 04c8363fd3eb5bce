/**
 * An account's settings and state (issue 35, ADR 0028): one row per account in `accounts`, returned by the
 * authentication statement with the key. Null settings mean "the installation's default".
 */
export interface AccountRecord {
  account: string;
  createdAt: Date;
  /** Reserved (ADR 0028): a sandboxed account's mail is captured, not delivered. */
  sandbox: boolean;
  /** Reserved (ADR 0028): a paused account may not send; `paused` says who paused it, when and why. */
  sendingStatus: "active" | "paused";
  paused: { at: Date; by: string | null; reason: string | null } | null;
  /** Requests per second for all the account's keys together; null: `MAILROOM_RATE_LIMIT_PER_ACCOUNT`. */
  rateLimitPerSecond: number | null;
  /** Reserved (ADR 0028): emails accepted per day; null: no quota. */
  dailySendLimit: number | null;
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
    rateLimitPerSecond: row.acct_rate_limit_per_second,
    dailySendLimit: row.acct_daily_send_limit,
    retentionDays: row.acct_retention_days,
  };
}
