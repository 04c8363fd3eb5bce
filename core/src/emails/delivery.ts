import { createBatcher, isolatingItemErrors } from "../db/batcher.ts";
import { newId } from "../db/ids.ts";
import type { Pool, Queryable } from "../db/pool.ts";
import type { DeliverPayload, TraceCarrier } from "../jobs/index.ts";
import type { TlsOutcome } from "../tls-reports/outcome.ts";
import { type EmailRow, toEmailRecord } from "./rows.ts";
import { tlsTimelineOf } from "./tls-detail.ts";
import type { EmailRecord } from "./types.ts";

export type Claimed =
  | {
      outcome: "send";
      email: EmailRecord;
      recipients: string[];
      /** Per-recipient results of earlier attempts, merged with this attempt's when it is recorded. */
      recipientResults: Record<string, unknown>;
      hasAttachments: boolean;
      /** Decided at accept (`emails.sandbox`): the capture transport takes it, nothing leaves. */
      sandbox: boolean;
    }
  | { outcome: "skip"; status: string }
  | { outcome: "failed"; reason: "api_key_revoked" | "api_key_expired" | "suppressed" };

type ClaimRow = Partial<EmailRow> & {
  email_id: string;
  outcome: "send" | "skip" | "failed";
  reason: string | null;
  has_attachments: boolean;
  pending_recipients: string[] | null;
  recipient_results: Record<string, unknown> | null;
  sandbox?: boolean;
};

function toClaimed(row: ClaimRow): Claimed {
  if (row.outcome === "skip") return { outcome: "skip", status: row.reason ?? "missing" };
  if (row.outcome === "failed") return { outcome: "failed", reason: row.reason as FailedReason };
  return {
    outcome: "send",
    email: toEmailRecord(row as EmailRow),
    recipients: row.pending_recipients ?? [],
    recipientResults: row.recipient_results ?? {},
    hasAttachments: row.has_attachments,
    sandbox: row.sandbox === true,
  };
}

/**
 * Takes emails for their SMTP handover, in one round trip (`mailroom_claim_emails`). For each:
 * locks its key (share) and then the email — revocation locks in the same order — and re-checks the key: a
 * revoke that committed first fails the email here; a later one waits and then finds it `sending`, i.e.
 * gone. Suppressed recipients are dropped; if none is left the email fails with `suppressed` and nothing is
 * sent. A `sending` email is claimed again: its worker died mid-handover. Recipients are the
 * ones accept decided (or a deferred attempt left pending). One result per request, in order.
 */
export async function claimEmails(
  pool: Pool,
  requests: readonly { emailId: string; now?: Date | undefined }[],
): Promise<Claimed[]> {
  const { rows } = await pool.query<ClaimRow>({
    name: "mailroom_claim_emails",
    text: `select c.email_id, c.outcome, c.reason, c.has_attachments, (c.email).*
           from mailroom_claim_emails($1::uuid[], $2::timestamptz[], $3::uuid[]) c`,
    values: [
      requests.map((r) => r.emailId),
      requests.map((r) => r.now ?? new Date()),
      requests.map(() => newId()),
    ],
  });
  // One row per request, in request order (an email asked for twice has two rows: the repeat is skipped).
  return requests.map((r, i) => {
    const row = rows[i];
    if (row?.email_id !== r.emailId)
      throw new Error(`mailroom_claim_emails returned no row for ${r.emailId}`);
    return toClaimed(row);
  });
}

type FailedReason = Extract<Claimed, { outcome: "failed" }>["reason"];

/** A job the reserved lane took (ADR 0075): locked under its worker id, to be completed or failed by it. */
export interface TakenDelivery {
  job: { id: string; attempts: number };
  payload: DeliverPayload;
  /** Claimed in the take's own transaction (an unkeyed job); undefined for a keyed job, claimed after it. */
  claimed: Claimed | undefined;
}

/**
 * The reserved delivery lane's fetch and claim in one round trip (`mailroom_take_reserved_deliveries`, ADR
 * 0075): up to `slots` jobs within their account's fair share, locked under `workerId`, each unkeyed job's
 * email claimed in the same transaction. In the order taken.
 */
export async function takeReservedDeliveries(
  db: Queryable,
  workerId: string,
  slots: number,
): Promise<TakenDelivery[]> {
  if (slots < 1) return [];
  const { rows } = await db.query<
    Partial<ClaimRow> & {
      job_id: string;
      job_attempts: number;
      payload: DeliverPayload;
    }
  >({
    name: "mailroom_take_reserved_deliveries",
    text: `select t.job_id, t.job_attempts, t.payload, t.email_id, t.outcome, t.reason,
                  t.has_attachments, (t.email).*
           from mailroom_take_reserved_deliveries($1::text, $2::int, $3::uuid[]) t`,
    values: [workerId, slots, Array.from({ length: slots }, () => newId())],
  });
  return rows.map((row) => {
    const claimed = row.outcome ? toClaimed(row as ClaimRow) : undefined;
    if (claimed && row.email_id !== row.payload.emailId)
      throw new Error(`mailroom_take_reserved_deliveries claimed ${row.email_id} for job ${row.job_id}`);
    return {
      job: { id: row.job_id, attempts: row.job_attempts },
      payload: row.payload,
      claimed,
    };
  });
}

/** What happened to one recipient in an attempt (the transport's report). */
export interface RecipientOutcome {
  recipient: string;
  status: "accepted" | "temporary" | "permanent";
  code?: number | undefined;
  response: string;
  /** How the session's TLS met the receiver's policy (direct and relay transports): shown on the timeline. */
  tls?: TlsOutcome | undefined;
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

/** An attempt to record: the claim it follows and the transport's per-recipient report. */
export interface AttemptToRecord {
  claimed: Pick<Extract<Claimed, { outcome: "send" }>, "email" | "recipientResults">;
  outcomes: readonly RecipientOutcome[];
  policy: RetryPolicy;
  now?: Date | undefined;
  /** The attempt's trace context: a retry's job and the outcome's webhook events continue it. */
  trace?: TraceCarrier | undefined;
}

/**
 * Decides an attempt's outcome from the per-recipient report. Accepted recipients are done; permanent
 * refusals are hard bounces (they join the account's suppression list); temporary ones stay pending and the
 * email is `deferred` with its next attempt scheduled, until the horizon makes it `failed`/
 * `retries_exhausted`. With nobody pending, the email is `delivered` when anyone accepted it, else `bounced`.
 * The claim's row is the state to build on: while `sending`, the email is this worker's alone.
 */
function decideAttempt({ claimed, outcomes, policy, now = new Date(), trace }: AttemptToRecord) {
  const { email } = claimed;
  const results = { ...claimed.recipientResults };
  for (const o of outcomes)
    results[o.recipient] = { status: o.status, code: o.code ?? null, response: o.response };
  const pending = outcomes.filter((o) => o.status === "temporary").map((o) => o.recipient);
  const bounced = outcomes.filter((o) => o.status === "permanent");
  const bouncedRecipients = bounced.map((b) => b.recipient);
  const everAccepted = Object.values(results).some((r) => (r as { status: string }).status === "accepted");
  const response = outcomes.map((o) => `${o.recipient}: ${o.response}`).join("; ");

  let result: AttemptResult;
  let reason: string | null = null;
  if (pending.length > 0) {
    const retryAt = new Date(now.getTime() + retryDelaySeconds(policy, email.attempts) * 1000);
    // Past the horizon (counted from acceptance) by the time of the next attempt: give up now.
    if ((retryAt.getTime() - email.createdAt.getTime()) / 1000 > policy.horizonSeconds) {
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
  if (bounced.length > 0) detail.bounced = bouncedRecipients;
  if (result.status === "deferred") detail.retryAt = result.retryAt.toISOString();
  const tls = tlsTimelineOf(outcomes);
  if (tls.length > 0) detail.tls = tls;
  const row = {
    emailId: email.id,
    status: result.status,
    reason,
    response,
    results,
    pending,
    bounced: bouncedRecipients,
    bouncedDetail: bounced.map((b) => b.response),
    retryAt: result.status === "deferred" ? result.retryAt.toISOString() : null,
    eventId: newId(),
    detail,
    trace: trace ?? null,
  };
  return { result, row };
}

/**
 * Records attempts in one round trip (`mailroom_record_attempts`): each email's new state,
 * its hard bounces on the suppression list, a deferred email's next attempt (same job key) and the timeline
 * event. One result per attempt, in order.
 */
export async function recordAttempts(
  pool: Pool,
  attempts: readonly AttemptToRecord[],
): Promise<AttemptResult[]> {
  const decided = attempts.map(decideAttempt);
  await pool.query({
    name: "mailroom_record_attempts",
    text: "select mailroom_record_attempts($1::jsonb)",
    values: [JSON.stringify(decided.map((d) => d.row))],
  });
  return decided.map((d) => d.result);
}

/**
 * Claims and records through shared statements: concurrent deliveries (a worker runs many at once) ride
 * together in one `mailroom_claim_emails` / `mailroom_record_attempts` call instead of one round trip each.
 */
export function createDeliveryStore(pool: Pool) {
  // One statement in flight per kind, the next gathering meanwhile: measured fuller batches and ~15 % more
  // deliveries/s than two in flight (make bench), since round trips, not statements, are the cost.
  const options = { concurrency: 1, maxBatch: 50 };
  // One email's data error fails that delivery alone, not the deliveries that shared its statement.
  const claim = createBatcher(
    isolatingItemErrors((requests: { emailId: string; now?: Date | undefined }[]) =>
      claimEmails(pool, requests),
    ),
    options,
  );
  const record = createBatcher(
    isolatingItemErrors((attempts: AttemptToRecord[]) => recordAttempts(pool, attempts)),
    options,
  );
  return {
    claim: (emailId: string, now?: Date) => claim({ emailId, now }),
    record: (attempt: AttemptToRecord) => record(attempt),
  };
}
