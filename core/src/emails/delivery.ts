import type { Pool } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { lockKeyForDelivery } from "../keys/store.ts";
import { keyState } from "../keys/types.ts";
import { appendEvents } from "./events.ts";
import { type EmailRow, toEmailRecord } from "./rows.ts";
import type { EmailRecord } from "./types.ts";

export type Claimed =
  | { outcome: "send"; email: EmailRecord }
  | { outcome: "skip"; status: string }
  | { outcome: "failed"; reason: "api_key_revoked" | "api_key_expired" | "api_key_missing" };

/**
 * Takes an email for its SMTP handover. Under the email's row lock and a share lock on its key, it re-checks
 * the key: a revoke that committed first fails the email here; a revoke that comes later waits for this
 * transaction and then finds the email already `sending` (it has left). Emails not in a sendable state are
 * skipped, which makes a repeated job harmless.
 */
export async function claimForDelivery(
  pool: Pool,
  emailId: string,
  now: Date = new Date(),
): Promise<Claimed> {
  return withTransaction(pool, async (client) => {
    // Lock order is key, then email — the same as revocation's — or the two deadlock.
    const { rows: owner } = await client.query<{ api_key_id: string }>(
      `select api_key_id from emails where id = $1`,
      [emailId],
    );
    if (!owner[0]) return { outcome: "skip", status: "missing" };
    const key = await lockKeyForDelivery(client, owner[0].api_key_id);
    const { rows } = await client.query<EmailRow>(`select * from emails where id = $1 for update`, [emailId]);
    const row = rows[0];
    if (!row) return { outcome: "skip", status: "missing" };
    if (!["scheduled", "queued", "deferred", "sending"].includes(row.status)) {
      return { outcome: "skip", status: row.status };
    }
    // A job that was already running when its email was rescheduled: the replacement job sends it later.
    if (
      row.status === "scheduled" &&
      row.scheduled_at &&
      row.scheduled_at.getTime() > now.getTime() + 1_000
    ) {
      return { outcome: "skip", status: "rescheduled" };
    }
    const state = key ? keyState(key, now) : "revoked";
    if (state !== "active") {
      const reason = !key ? "api_key_missing" : state === "revoked" ? "api_key_revoked" : "api_key_expired";
      await client.query(
        `update emails set status = 'failed', failure_reason = $2, updated_at = now() where id = $1`,
        [emailId, reason],
      );
      await appendEvents(client, [emailId], "failed", { reason });
      return { outcome: "failed", reason };
    }
    const { rows: updated } = await client.query<EmailRow>(
      `update emails set status = 'sending', attempts = attempts + 1, updated_at = now()
       where id = $1 returning *`,
      [emailId],
    );
    await appendEvents(client, [emailId], "sending", { attempt: row.attempts + 1 });
    return { outcome: "send", email: toEmailRecord(updated[0] as EmailRow) };
  });
}

export type DeliveryOutcome =
  | { status: "delivered"; response: string }
  | { status: "deferred"; response: string }
  | { status: "bounced"; response: string }
  | { status: "failed"; reason: string; response?: string };

/** Records the result of a handover attempt and appends it to the timeline. */
export async function recordDeliveryOutcome(
  pool: Pool,
  emailId: string,
  outcome: DeliveryOutcome,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    const response = "response" in outcome ? (outcome.response ?? null) : null;
    const reason = outcome.status === "failed" ? outcome.reason : null;
    await client.query(
      `update emails set status = $2, failure_reason = $3, last_smtp_response = coalesce($4, last_smtp_response),
              updated_at = now()
       where id = $1`,
      [emailId, outcome.status, reason, response],
    );
    const detail: Record<string, unknown> = {};
    if (response) detail.response = response;
    if (reason) detail.reason = reason;
    await appendEvents(client, [emailId], outcome.status, detail);
  });
}
