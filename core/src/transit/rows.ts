import { domainToASCII } from "node:url";
import type { TlsMechanism, TlsOutcome } from "../tls-reports/outcome.ts";

/** Why a recipient was deferred, as the transit view counts it (ADR 0066). */
export const DEFERRAL_REASONS = [
  "shaped",
  "rate_limited",
  "receiver_4xx",
  "tls_policy",
  "connection",
] as const;
export type DeferralReason = (typeof DEFERRAL_REASONS)[number];

/** One recipient's outcome of an attempt, as the deliver task hands it over (a transport's result). */
export interface TransitOutcome {
  recipient: string;
  status: "accepted" | "temporary" | "permanent";
  code?: number | undefined;
  response: string;
  /** The shaping destination the recipient's transaction went to (`group:<name>`, `host:<mx>`). */
  destination?: string | undefined;
  tls?: TlsOutcome | undefined;
  /** Deferred untried by the destination's shaping (backed off, or no slot in time). */
  untried?: boolean | undefined;
  /** The receiver's reply asked us to slow down (the worker's shaping judges it, `isRateLimitReply`). */
  rateLimited?: boolean | undefined;
}

/** One row of `transit_counts` to add (`mailroom_record_tls_sessions`'s second argument). */
export interface TransitRow {
  account: string;
  hour: string;
  domain: string;
  destination: string;
  kind: "tls" | "delivered" | "bounced" | "deferred";
  mechanism: "" | TlsMechanism;
  result: string;
  count: number;
  at: string;
  reason: string;
}

// The table's bounds: a longer value is cut, never refused, so one odd receiver cannot cost the counts.
const MAX_NAME = 255;
const MAX_DESTINATION = 260;
const MAX_REASON = 255;

/** The recipient's domain in lower case and A-labels, or undefined for an address without one. */
function domainOf(recipient: string): string | undefined {
  const at = recipient.lastIndexOf("@");
  if (at <= 0 || at === recipient.length - 1) return undefined;
  const text = recipient
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "");
  return (domainToASCII(text) || text).slice(0, MAX_NAME) || undefined;
}

/**
 * Why a temporary result was deferred: untried by the shaping; refused by the destination's enforced TLS
 * policy (MTA-STS, DANE, REQUIRETLS: the session's outcome failed a policy that is enforced); a reply asking
 * us to slow down; another 4xx reply; or no reply at all (connection, DNS, addresses refused).
 */
export function deferralReasonOf(outcome: TransitOutcome): DeferralReason {
  if (outcome.untried) return "shaped";
  if (outcome.tls?.enforced && outcome.tls.result !== "success") return "tls_policy";
  if (outcome.code === undefined) return "connection";
  return outcome.rateLimited ? "rate_limited" : "receiver_4xx";
}

/**
 * An attempt's outcomes as one account's transit counts for the hour of `at`: per recipient domain and
 * destination, recipients delivered, bounced and deferred (by reason) and the TLS sessions (by mechanism and
 * result; equal outcomes of one domain are one session, as for the TLS report, relay sessions included).
 */
export function transitRowsOf(account: string, outcomes: readonly TransitOutcome[], at: Date): TransitRow[] {
  const hour = new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000).toISOString();
  const rows = new Map<string, TransitRow>();
  const sessions = new Set<string>();
  const add = (row: Omit<TransitRow, "account" | "hour" | "count" | "at">) => {
    const key = JSON.stringify([row.domain, row.destination, row.kind, row.mechanism, row.result]);
    const found = rows.get(key);
    if (found) {
      found.count += 1;
      if (row.reason) found.reason = row.reason;
    } else rows.set(key, { account, hour, ...row, count: 1, at: at.toISOString() });
  };
  for (const outcome of outcomes) {
    const domain = domainOf(outcome.recipient);
    if (!domain) continue;
    const destination = (outcome.destination ?? "").slice(0, MAX_DESTINATION);
    const reason = outcome.response.slice(0, MAX_REASON);
    if (outcome.status === "accepted")
      add({ domain, destination, kind: "delivered", mechanism: "", result: "", reason: "" });
    else if (outcome.status === "permanent")
      add({ domain, destination, kind: "bounced", mechanism: "", result: "", reason });
    else
      add({
        domain,
        destination,
        kind: "deferred",
        mechanism: "",
        result: deferralReasonOf(outcome),
        reason,
      });
    const tls = outcome.tls;
    if (!tls) continue;
    // Recipients of one session carry equal outcomes: the session counts once.
    const session = JSON.stringify([domain, destination, tls]);
    if (sessions.has(session)) continue;
    sessions.add(session);
    const failed = tls.result !== "success";
    add({
      domain,
      destination,
      kind: "tls",
      mechanism: tls.mechanism,
      result: tls.result,
      reason: failed ? (tls.detail ?? tls.result).slice(0, MAX_REASON) : "",
    });
  }
  return [...rows.values()];
}
