import { createHash } from "node:crypto";
import { domainToASCII } from "node:url";
import { createBatcher, isolatingItemErrors } from "../db/batcher.ts";
import type { Pool } from "../db/pool.ts";
import { type TransitOutcome, type TransitRow, transitRowsOf } from "../transit/rows.ts";
import type { TlsOutcome } from "./outcome.ts";

/** One row of `tls_sessions` to add: a day's count of sessions that met one policy with one result. */
export interface TlsSessionRow {
  day: string;
  policy_domain: string;
  policy_type: TlsOutcome["policyType"];
  policy_sha256: string;
  policy_strings: string[];
  mx_host: string;
  receiving_ip: string;
  result_type: TlsOutcome["result"];
  failure_reason: string;
  sessions: number;
}

// Bounds of what a transport may hand us (the table's checks): a longer value is cut, never refused, so one
// odd receiver cannot cost the day's counts.
const MAX_NAME = 255;
const MAX_REASON = 255;
const MAX_POLICY_STRINGS = 64;
const MAX_POLICY_STRING = 1024;

// Names in A-labels (an internationalised domain as its xn-- form), as DNS and the report's headers carry them.
const name = (value: string | undefined) => {
  const text = (value ?? "").trim().toLowerCase().replace(/\.$/, "");
  return (domainToASCII(text) || text).slice(0, MAX_NAME);
};

/** The UTC day of `at`, as `YYYY-MM-DD` (the report's day: RFC 8460 §4 reports cover 0000-2400 UTC). */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/**
 * One attempt's TLS outcomes as session counts (relay sessions left out). Recipients that shared a session carry equal outcomes (the
 * transport reports one per recipient), so equal outcomes within one attempt are one session: the report
 * counts sessions (RFC 8460 §4.4 `total-successful-session-count`), not recipients.
 */
export function sessionRowsOf(outcomes: readonly (TlsOutcome | undefined)[], at: Date): TlsSessionRow[] {
  const rows = new Map<string, TlsSessionRow>();
  for (const outcome of outcomes) {
    // A relay session is with the relay, not with the recipient domain's MX: nothing to tell that domain.
    if (!outcome || outcome.mechanism === "relay") continue;
    // A TLS report's own sessions stay out of the next report (RFC 8460 §5.3); the transit view still counts them.
    if (outcome.exempt === "tls-report") continue;
    const policyStrings = (outcome.policyStrings ?? [])
      .slice(0, MAX_POLICY_STRINGS)
      .map((s) => s.slice(0, MAX_POLICY_STRING));
    const row: TlsSessionRow = {
      day: utcDay(at),
      policy_domain: name(outcome.policyDomain) || "unknown",
      policy_type: outcome.policyType,
      policy_sha256: createHash("sha256").update(JSON.stringify(policyStrings)).digest("hex"),
      policy_strings: policyStrings,
      mx_host: name(outcome.mxHost),
      receiving_ip: (outcome.receivingIp ?? "").slice(0, 45),
      result_type: outcome.result,
      failure_reason: outcome.result === "success" ? "" : (outcome.detail ?? "").slice(0, MAX_REASON),
      sessions: 1,
    };
    const key = JSON.stringify({ ...row, policy_strings: undefined });
    rows.set(key, row);
  }
  return [...rows.values()];
}

/** Session counts and an account's transit counts to add together (`mailroom_record_tls_sessions`). */
export interface TlsRecord {
  sessions: readonly TlsSessionRow[];
  transit: readonly TransitRow[];
}

/**
 * Adds session counts and transit counts in one statement (`mailroom_record_tls_sessions`, the one writer of
 * `tls_sessions` and `transit_counts`), so the TLS report and the transit view count the same sessions.
 */
export async function recordTlsSessions(pool: Pool, record: TlsRecord): Promise<void> {
  if (record.sessions.length === 0 && record.transit.length === 0) return;
  await pool.query({
    name: "mailroom_record_tls_sessions",
    text: "select mailroom_record_tls_sessions($1::jsonb, $2::jsonb)",
    values: [JSON.stringify(record.sessions), JSON.stringify(record.transit)],
  });
}

/**
 * Records each delivery attempt's outcomes after the attempt itself is recorded: its TLS sessions for the
 * day's report and the account's transit counts (ADR 0066). Concurrent attempts share one statement (one in
 * flight, the next gathering), so the counts cost the delivery lane no round trip of its own. A failure
 * rejects only the caller's promise; the deliver task logs and counts it and goes on: the attempt's outcome
 * is already durable, only that attempt's counts are missing.
 */
export function createTlsRecorder(pool: Pool) {
  const record = createBatcher(
    isolatingItemErrors(async (batches: TlsRecord[]) => {
      await recordTlsSessions(pool, {
        sessions: batches.flatMap((b) => b.sessions),
        transit: batches.flatMap((b) => b.transit),
      });
      return batches.map(() => undefined);
    }),
    { concurrency: 1, maxBatch: 100 },
  );
  return (account: string, outcomes: readonly TransitOutcome[], at = new Date()): Promise<void> => {
    const sessions = sessionRowsOf(
      outcomes.map((o) => o.tls),
      at,
    );
    const transit = transitRowsOf(account, outcomes, at);
    return sessions.length === 0 && transit.length === 0 ? Promise.resolve() : record({ sessions, transit });
  };
}
