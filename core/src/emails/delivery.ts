import type { Pool, PoolClient } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { lockKeyOfEmail } from "../keys/store.ts";
import { keyState } from "../keys/types.ts";
import { addSuppressions, suppressedAmong } from "../suppressions/store.ts";
import { appendEvents } from "./events.ts";
import { type EmailRow, toEmailRecord } from "./rows.ts";
import type { EmailRecord } from "./types.ts";

export type Claimed =
  | { outcome: "send"; email: EmailRecord; recipients: string[] }
  | { outcome: "skip"; status: string }
  | { outcome: "failed"; reason: "api_key_revoked" | "api_key_expired" | "suppressed" };

const SENDABLE = ["scheduled", "queued", "deferred", "sending"];

const bare = (mailbox: string) => (/<([^<>]+)>$/.exec(mailbox)?.[1] ?? mailbox).toLowerCase();

async function fail(client: PoolClient, emailId: string, reason: string): Promise<void> {
  await client.query(
    `update emails set status = 'failed', failure_reason = $2, pending_recipients = '{}', updated_at = now()
     where id = $1`,
    [emailId, reason],
  );
  await appendEvents(client, [emailId], "failed", { reason });
}

/**
 * Takes an email for its SMTP handover. Locks its key (share) and then the email — revocation locks in the
 * same order — and re-checks the key: a revoke that committed first fails the email here; a later one waits
 * and then finds it `sending`, i.e. gone. Suppressed recipients are dropped; if none is left the email fails
 * with `suppressed` and nothing is sent. A `sending` email is claimed again: its worker died mid-handover.
 */
export async function claimForDelivery(
  pool: Pool,
  emailId: string,
  now: Date = new Date(),
): Promise<Claimed> {
  return withTransaction(pool, async (client) => {
    const key = await lockKeyOfEmail(client, emailId);
    if (!key) return { outcome: "skip", status: "missing" };
    const { rows } = await client.query<EmailRow & { pending_recipients: string[] | null }>(
      `select * from emails where id = $1 for update`,
      [emailId],
    );
    const row = rows[0];
    if (!row) return { outcome: "skip", status: "missing" };
    if (!SENDABLE.includes(row.status)) return { outcome: "skip", status: row.status };
    // A job that was already running when its email was rescheduled: the replacement job sends it later.
    if (
      row.status === "scheduled" &&
      row.scheduled_at &&
      row.scheduled_at.getTime() > now.getTime() + 1_000
    ) {
      return { outcome: "skip", status: "rescheduled" };
    }
    const state = keyState(key, now);
    if (state !== "active") {
      const reason = state === "revoked" ? "api_key_revoked" : "api_key_expired";
      await fail(client, emailId, reason);
      return { outcome: "failed", reason };
    }
    const all = [...row.to_addresses, ...row.cc_addresses, ...row.bcc_addresses].map(bare);
    const wanted = [...new Set(row.pending_recipients ?? all)];
    const suppressed = await suppressedAmong(client, row.account, wanted);
    const recipients = wanted.filter((r) => !suppressed.has(r));
    if (recipients.length === 0) {
      await fail(client, emailId, "suppressed");
      return { outcome: "failed", reason: "suppressed" };
    }
    const { rows: updated } = await client.query<EmailRow>(
      `update emails set status = 'sending', attempts = attempts + 1, pending_recipients = $2, updated_at = now()
       where id = $1 returning *`,
      [emailId, recipients],
    );
    await appendEvents(client, [emailId], "sending", {
      attempt: row.attempts + 1,
      ...(suppressed.size > 0 ? { suppressed: [...suppressed] } : {}),
    });
    return { outcome: "send", email: toEmailRecord(updated[0] as EmailRow), recipients };
  });
}

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
 * Records an attempt's per-recipient outcomes. Accepted recipients are done; permanent refusals are hard
 * bounces and join the account's suppression list; temporary ones stay pending and the email is `deferred`
 * with its next attempt scheduled (same job key), until the horizon makes it `failed`/`retries_exhausted`.
 * With nobody pending, the email is `delivered` when anyone accepted it, else `bounced`.
 */
export async function recordAttempt(
  pool: Pool,
  emailId: string,
  outcomes: readonly RecipientOutcome[],
  policy: RetryPolicy,
  now: Date = new Date(),
): Promise<AttemptResult> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<EmailRow & { recipient_results: Record<string, unknown> }>(
      `select * from emails where id = $1 for update`,
      [emailId],
    );
    const row = rows[0];
    if (!row) return { status: "failed" };
    const results = { ...row.recipient_results };
    for (const o of outcomes)
      results[o.recipient] = { status: o.status, code: o.code ?? null, response: o.response };
    const pending = outcomes.filter((o) => o.status === "temporary").map((o) => o.recipient);
    const bounced = outcomes.filter((o) => o.status === "permanent");
    const everAccepted = Object.values(results).some((r) => (r as { status: string }).status === "accepted");
    const response = outcomes.map((o) => `${o.recipient}: ${o.response}`).join("; ");
    await addSuppressions(
      client,
      row.account,
      bounced.map((b) => ({
        address: b.recipient,
        reason: "hard_bounce",
        detail: b.response,
        sourceEmailId: emailId,
      })),
    );

    let result: AttemptResult;
    let reason: string | null = null;
    if (pending.length > 0) {
      const age = (now.getTime() - row.created_at.getTime()) / 1000;
      const retryAt = new Date(now.getTime() + retryDelaySeconds(policy, row.attempts) * 1000);
      if (age + (retryAt.getTime() - now.getTime()) / 1000 > policy.horizonSeconds) {
        result = { status: "failed" };
        reason = "retries_exhausted";
      } else {
        result = { status: "deferred", retryAt };
      }
    } else {
      result = { status: everAccepted ? "delivered" : "bounced" };
    }
    await client.query(
      `update emails set status = $2, failure_reason = $3, last_smtp_response = $4, recipient_results = $5,
              pending_recipients = $6, updated_at = now()
       where id = $1`,
      [emailId, result.status, reason, response, JSON.stringify(results), pending],
    );
    const detail: Record<string, unknown> = { response };
    if (reason) detail.reason = reason;
    if (bounced.length > 0) detail.bounced = bounced.map((b) => b.recipient);
    if (result.status === "deferred") {
      detail.retryAt = result.retryAt.toISOString();
      await client.query(
        `select graphile_worker.add_job('deliver', json_build_object('emailId', $1::text), run_at := $2,
                                        job_key := 'deliver:' || $1, job_key_mode := 'replace')`,
        [emailId, result.retryAt],
      );
    }
    await appendEvents(client, [emailId], result.status, detail);
    return result;
  });
}
