import { pauseAccount } from "../accounts/pause.ts";
import type { Pool } from "../db/pool.ts";
import { type ReputationRate, rollUpReputation, storeRates, sumWindows } from "./store.ts";
import { judgeRates, type ReputationThresholds, thresholdsOf, WINDOWS_HOURS } from "./thresholds.ts";

/** Who the guard's pauses are recorded as (`paused_by`, the `account.paused` event's `by`). */
export const GUARD = "reputation-guard";

export interface GuardOptions {
  now: Date;
  /** How long a noted horizon of event ids waits before it is read (see mailroom_roll_up_reputation). */
  settleSeconds?: number;
  /** At most this many event ids read per run: a first run over a long log catches up over several. */
  maxEvents?: number;
}

export interface GuardRun {
  /** Event ids the roll-up read. */
  read: number;
  rates: ReputationRate[];
  /** Accounts this run paused, with the reason recorded. */
  paused: { account: string; reason: string }[];
}

const percent = (n: number) => `${(n * 100).toFixed(2)} %`;

/** Why a `pause` rate pauses: the rate that reached its line, in words. */
function reasonOf(rate: ReputationRate, t: ReputationThresholds): string {
  const where = rate.domain === "" ? "the account" : rate.domain;
  const window = rate.windowHours === 24 ? "24 h" : "7 d";
  const complaints = rate.complained / rate.sent;
  const [what, value, line] =
    complaints >= t.pauseComplaintRate
      ? ["complaint rate", complaints, t.pauseComplaintRate]
      : ["bounce rate", rate.bounced / rate.sent, t.pauseBounceRate];
  return `reputation: ${what} ${percent(value)} over ${window} for ${where} (${rate.sent} sent) reached the pause line of ${percent(line)}`;
}

/**
 * The reputation guard (issue 31 item 2, ADR 0052), run every minute by the `guard_reputation` job: rolls the
 * timeline's new events into the hourly counters, sums the 24 h and 7 d windows per account and per sending
 * domain, judges each against the account's thresholds, stores the rates (API, metrics, domain resource) and
 * pauses every active account with a window at its pause line (`pauseAccount`: held mail, `account.paused`).
 * Events settle for a minute before they count, so a storm pauses its account within about two runs.
 */
export async function runReputationGuard(pool: Pool, options: GuardOptions): Promise<GuardRun> {
  const { now } = options;
  const read = await rollUpReputation(pool, now, {
    settleSeconds: options.settleSeconds ?? 60,
    maxEvents: options.maxEvents ?? 200_000,
  });
  const counts = await sumWindows(pool, now, WINDOWS_HOURS);
  const accounts = [...new Set(counts.map((c) => c.account))];
  const { rows } = await pool.query<{
    account: string;
    reputation: Record<string, unknown> | null;
    active: boolean;
  }>(
    "select account, reputation, sending_status = 'active' as active from accounts where account = any($1)",
    [accounts],
  );
  const byAccount = new Map(rows.map((r) => [r.account, { ...r, thresholds: thresholdsOf(r.reputation) }]));
  const rates = counts.map((c) => ({
    ...c,
    level: judgeRates(c, byAccount.get(c.account)?.thresholds ?? thresholdsOf(null)),
    computedAt: now,
  }));
  await storeRates(pool, rates, now);
  const paused: GuardRun["paused"] = [];
  for (const account of accounts) {
    const state = byAccount.get(account);
    const crossing = rates.find((r) => r.account === account && r.level === "pause");
    if (!state?.active || !crossing) continue;
    const reason = reasonOf(crossing, state.thresholds);
    const audit = { actor: { kind: "system", id: GUARD } } as const;
    if (await pauseAccount(pool, account, { reason, by: GUARD, now, audit }))
      paused.push({ account, reason });
  }
  return { read, rates, paused };
}
