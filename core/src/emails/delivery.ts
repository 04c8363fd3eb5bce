import { v7 as uuidv7 } from "uuid";
import type { Pool } from "../db/pool.ts";
import { type EmailRow, toEmailRecord } from "./rows.ts";
import type { EmailRecord } from "./types.ts";

export type Claimed =
  | {
      outcome: "send";
      email: EmailRecord;
      recipients: string[];
      /** Per-recipient results of earlier attempts, merged with this attempt's when it is recorded. */
      recipientResults: Record<string, unknown>;
      hasAttachments: boolean;
    }
  | { outcome: "skip"; status: string }
  | { outcome: "failed"; reason: "api_key_revoked" | "api_key_expired" | "suppressed" };

type ClaimRow = Partial<EmailRow> & {
  outcome: "send" | "skip" | "failed";
  reason: string | null;
  has_attachments: boolean;
  pending_recipients: string[] | null;
  recipient_results: Record<string, unknown> | null;
};

/**
 * Takes an email for its SMTP handover, in one round trip (`mailroom_claim_email`, migration 0010): locks its
 * key (share) and then the email — revocation locks in the same order — and re-checks the key: a revoke that
 * committed first fails the email here; a later one waits and then finds it `sending`, i.e. gone. Suppressed
 * recipients are dropped; if none is left the email fails with `suppressed` and nothing is sent. A `sending`
 * email is claimed again: its worker died mid-handover.
 */
export async function claimForDelivery(
  pool: Pool,
  emailId: string,
  now: Date = new Date(),
): Promise<Claimed> {
  const { rows } = await pool.query<ClaimRow>({
    name: "mailroom_claim_email",
    text: `select c.outcome, c.reason, c.has_attachments, (c.email).* from mailroom_claim_email($1, $2, $3) c`,
    values: [emailId, now, uuidv7()],
  });
  const row = rows[0];
  if (!row) throw new Error("mailroom_claim_email returned no row");
  if (row.outcome === "skip") return { outcome: "skip", status: row.reason ?? "missing" };
  if (row.outcome === "failed") return { outcome: "failed", reason: row.reason as FailedReason };
  return {
    outcome: "send",
    email: toEmailRecord(row as EmailRow),
    recipients: row.pending_recipients ?? [],
    recipientResults: row.recipient_results ?? {},
    hasAttachments: row.has_attachments,
  };
}

type FailedReason = Extract<Claimed, { outcome: "failed" }>["reason"];

/** What happened to one recipient in an attempt (the transport's report). */
export interface RecipientOutcome {
  recipient: string;
  status: "accepted" | "temporary" | "permanent";
  code?: number | undefined;
  response: string;
}

export interface RetryPolicy {
  /** First retry delay; each later one doubles, up to `maxDelaySeconds`. */
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  /** Past this age (from acceptance) a temporary failure fails the email with `retries_exhausted`. */
  horizonSeconds: number;
}

export type AttemptResult =
  | { status: "delivered" | "bounced" | "failed" }
  | { status: "deferred"; retryAt: Date };

/** Delay before retry number `attempt` (1-based): base × 2^(attempt-1), capped. */
export function retryDelaySeconds(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelaySeconds, policy.baseDelaySeconds * 2 ** Math.max(0, attempt - 1));
}

/**
 * Records an attempt's per-recipient outcomes for an email this worker claimed, in one round trip
 * (`mailroom_record_attempt`, migration 0010). Accepted recipients are done; permanent refusals are hard
 * bounces and join the account's suppression list; temporary ones stay pending and the email is `deferred`
 * with its next attempt scheduled (same job key), until the horizon makes it `failed`/`retries_exhausted`.
 * With nobody pending, the email is `delivered` when anyone accepted it, else `bounced`. The claim's row is
 * the state to build on: while `sending`, the email is this worker's alone.
 */
export async function recordAttempt(
  pool: Pool,
  claimed: Pick<Extract<Claimed, { outcome: "send" }>, "email" | "recipientResults">,
  outcomes: readonly RecipientOutcome[],
  policy: RetryPolicy,
  now: Date = new Date(),
): Promise<AttemptResult> {
  const { email } = claimed;
  const results = { ...claimed.recipientResults };
  for (const o of outcomes)
    results[o.recipient] = { status: o.status, code: o.code ?? null, response: o.response };
  const pending = outcomes.filter((o) => o.status === "temporary").map((o) => o.recipient);
  const bounced = outcomes.filter((o) => o.status === "permanent");
  const everAccepted = Object.values(results).some((r) => (r as { status: string }).status === "accepted");
  const response = outcomes.map((o) => `${o.recipient}: ${o.response}`).join("; ");

  let result: AttemptResult;
  let reason: string | null = null;
  if (pending.length > 0) {
    const age = (now.getTime() - email.createdAt.getTime()) / 1000;
    const retryAt = new Date(now.getTime() + retryDelaySeconds(policy, email.attempts) * 1000);
    if (age + (retryAt.getTime() - now.getTime()) / 1000 > policy.horizonSeconds) {
      result = { status: "failed" };
      reason = "retries_exhausted";
    } else {
      result = { status: "deferred", retryAt };
    }
  } else {
    result = { status: everAccepted ? "delivered" : "bounced" };
  }
  const detail: Record<string, unknown> = { response };
  if (reason) detail.reason = reason;
  if (bounced.length > 0) detail.bounced = bounced.map((b) => b.recipient);
  if (result.status === "deferred") detail.retryAt = result.retryAt.toISOString();
  await pool.query({
    name: "mailroom_record_attempt",
    text: `select mailroom_record_attempt($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    values: [
      email.id,
      result.status,
      reason,
      response,
      JSON.stringify(results),
      pending,
      bounced.map((b) => b.recipient),
      bounced.map((b) => b.response),
      result.status === "deferred" ? result.retryAt : null,
      uuidv7(),
      JSON.stringify(detail),
    ],
  });
  return result;
}
