import type { Queryable } from "../db/pool.ts";
import { readRates } from "../reputation/store.ts";
import { type ReputationLevel, type ReputationThresholds, thresholdsOf } from "../reputation/thresholds.ts";
import { readAccountUsage } from "./quota.ts";
import type { AccountRecord } from "./record.ts";

/** An account as `GET /v1/account` shows it: its state, its limits, what it used, how its mail is received. */
export interface AccountView {
  account: string;
  sendingStatus: AccountRecord["sendingStatus"];
  paused: AccountRecord["paused"];
  resumed: AccountRecord["resumed"];
  policy: string | null;
  limits: {
    requestsPerSecond: number | null;
    emailsPerSecond: number | null;
    emailsPerDay: number | null;
    batchSize: number;
    allowedCategories: string[] | null;
    retentionDays: number | null;
  };
  usage: { emailsThisSecond: number; emailsToday: number; dayResetsAt: Date };
  reputation: {
    thresholds: ReputationThresholds;
    /** Per window: the whole account (`domain` `""`) and each sending domain. */
    rates: {
      domain: string;
      windowHours: number;
      sent: number;
      bounced: number;
      complained: number;
      bounceRate: number | null;
      complaintRate: number | null;
      level: ReputationLevel;
    }[];
    computedAt: Date | null;
  };
}

/**
 * The account's view for the API: the row the authentication statement already read, the installation's
 * defaults where the account sets none, its quota usage and the guard's latest rates (two reads).
 */
export async function describeAccount(
  db: Queryable,
  account: AccountRecord,
  defaults: { requestsPerSecond: number; batchSize: number },
  now: Date,
): Promise<AccountView> {
  const [usage, rates] = await Promise.all([
    readAccountUsage(db, account.account, now),
    readRates(db, account.account),
  ]);
  return {
    account: account.account,
    sendingStatus: account.sendingStatus,
    paused: account.paused,
    resumed: account.resumed,
    policy: account.policy,
    limits: {
      requestsPerSecond: account.rateLimitPerSecond ?? (defaults.requestsPerSecond || null),
      emailsPerSecond: account.emailsPerSecond,
      emailsPerDay: account.dailySendLimit,
      batchSize: account.batchSize ?? defaults.batchSize,
      allowedCategories: account.allowedCategories,
      retentionDays: account.retentionDays,
    },
    usage,
    reputation: {
      thresholds: thresholdsOf(account.reputation),
      rates: rates.map((r) => ({
        domain: r.domain,
        windowHours: r.windowHours,
        sent: r.sent,
        bounced: r.bounced,
        complained: r.complained,
        bounceRate: r.sent > 0 ? r.bounced / r.sent : null,
        complaintRate: r.sent > 0 ? r.complained / r.sent : null,
        level: r.level,
      })),
      computedAt: rates[0]?.computedAt ?? null,
    },
  };
}
