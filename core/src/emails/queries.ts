import { newId } from "../db/ids.ts";
import type { PoolClient, Queryable } from "../db/pool.ts";
import { type EmailRow, toEmailRecord } from "./rows.ts";
import type { Attachment, EmailRecord } from "./types.ts";

/** One email of an account; another account's email is indistinguishable from a missing one. */
export async function getEmail(db: Queryable, account: string, id: string): Promise<EmailRecord | undefined> {
  const { rows } = await db.query<EmailRow>(`select * from emails where id = $1 and account = $2`, [
    id,
    account,
  ]);
  const row = rows[0];
  return row ? toEmailRecord(row) : undefined;
}

/**
 * Fails every email of a key that has not left yet (queued, scheduled or deferred), with the given reason.
 * Runs in the revoking transaction so the key's state and its mail change together.
 */
export async function failUnsentEmailsOfKey(
  client: PoolClient,
  keyId: string,
  reason: "api_key_revoked" | "api_key_expired",
): Promise<string[]> {
  const { rows } = await client.query<{ id: string; account: string }>(
    `select id, account from emails where api_key_id = $1 and status in ('queued', 'scheduled', 'deferred')
     order by id for update`,
    [keyId],
  );
  const ids = rows.map((r) => r.id);
  if (rows[0]) {
    await client.query(`select mailroom_fail_emails($1, $2::uuid[], $3::uuid[], $4)`, [
      rows[0].account,
      ids,
      ids.map(() => newId()),
      reason,
    ]);
  }
  return ids;
}

/** An email's attachments in their original order. */
export async function loadAttachments(db: Queryable, emailId: string): Promise<Attachment[]> {
  const { rows } = await db.query<{
    filename: string;
    content_type: string;
    content_id: string | null;
    content: Buffer;
  }>(
    `select filename, content_type, content_id, content from email_attachments where email_id = $1 order by position`,
    [emailId],
  );
  return rows.map((r) => ({
    filename: r.filename,
    contentType: r.content_type,
    contentId: r.content_id ?? undefined,
    content: r.content,
  }));
}

/** The message an SMTP client submitted for an email, as stored (see `EmailDraft.raw`). */
export async function loadRawMessage(db: Queryable, emailId: string): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ content: Buffer }>(
    `select content from email_raw_messages where email_id = $1`,
    [emailId],
  );
  return rows[0]?.content;
}

/** Whether the account has used this idempotency key already (a retry, answered with the first send's result). */
export async function isKnownIdempotencyKey(db: Queryable, account: string, key: string): Promise<boolean> {
  const { rowCount } = await db.query("select 1 from idempotency_keys where account = $1 and key = $2", [
    account,
    key,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Forgets idempotency keys older than the retention period; their emails stay in the log. */
export async function purgeIdempotencyKeys(db: Queryable, retentionHours: number, now: Date = new Date()) {
  const result = await db.query(
    `delete from idempotency_keys where created_at < $1::timestamptz - make_interval(hours => $2)`,
    [now, retentionHours],
  );
  return result.rowCount ?? 0;
}

/**
 * The email being handed over (status `sending`) under a Message-ID header, for the local
 * capture server, which sees only the message; undefined when none is, or when emails of more than one account
 * share it (a Message-ID a submission client chose), so a captured message is never shown to the wrong one.
 */
export async function findSendingEmail(
  db: Queryable,
  messageIdHeader: string,
): Promise<{ id: string; account: string; subject: string } | undefined> {
  const { rows } = await db.query<{ id: string; account: string; subject: string }>(
    `select id, account, subject from emails where message_id_header = $1 and status = 'sending' limit 2`,
    [messageIdHeader],
  );
  return rows.length === 1 ? rows[0] : undefined;
}
