/**
 * The reputation guard's lines (issue 31 item 2): rates of bounces and complaints over what was sent, judged
 * only from a minimum volume on. The defaults follow what receivers publish: Gmail and Yahoo's 0.1 % / 0.3 %
 * complaint lines, and the 2 % / 5 % bounce lines senders are held to (SES reviews at 5 %).
 */
export interface ReputationThresholds {
  /** Emails sent in the window before a rate is judged (fewer: `low_volume`). */
  minimumVolume: number;
  warnBounceRate: number;
  pauseBounceRate: number;
  warnComplaintRate: number;
  pauseComplaintRate: number;
}

export const DEFAULT_THRESHOLDS: Readonly<ReputationThresholds> = Object.freeze({
  minimumVolume: 500,
  warnBounceRate: 0.02,
  pauseBounceRate: 0.05,
  warnComplaintRate: 0.001,
  pauseComplaintRate: 0.003,
});

/** The windows rates are kept over, in hours: a day (the receivers' line) and a week. */
export const WINDOWS_HOURS = [24, 168] as const;

export type ReputationLevel = "ok" | "low_volume" | "warn" | "pause";

/** The account's thresholds: what its AccountPolicy declared (the `accounts.reputation` column) over the defaults. */
export function thresholdsOf(declared: Record<string, unknown> | null): ReputationThresholds {
  const out = { ...DEFAULT_THRESHOLDS };
  for (const name of Object.keys(DEFAULT_THRESHOLDS) as (keyof ReputationThresholds)[]) {
    const value = declared?.[name];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) out[name] = value;
  }
  return out;
}

/** The level of one window's counts: pause or warn when either rate reaches its line, from the minimum volume. */
export function judgeRates(
  counts: { sent: number; bounced: number; complained: number },
  thresholds: ReputationThresholds,
): ReputationLevel {
  if (counts.sent < Math.max(1, thresholds.minimumVolume)) return "low_volume";
  const bounceRate = counts.bounced / counts.sent;
  const complaintRate = counts.complained / counts.sent;
  if (bounceRate >= thresholds.pauseBounceRate || complaintRate >= thresholds.pauseComplaintRate)
    return "pause";
  if (bounceRate >= thresholds.warnBounceRate || complaintRate >= thresholds.warnComplaintRate) return "warn";
  return "ok";
}
