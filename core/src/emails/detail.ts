import { isUuid } from "../db/ids.ts";
import type { Queryable } from "../db/pool.ts";
import { listEvents } from "./events.ts";
import { getEmail, loadAttachments } from "./queries.ts";
import type { EmailEvent, EmailRecord, StoredRecipientResult } from "./types.ts";

/** One email of the log in full: what was sent, each recipient's outcome, its attachments' sizes, its timeline. */
export interface EmailDetail extends EmailRecord {
  recipients: Array<{ address: string } & StoredRecipientResult>;
  attachments: Array<{ filename: string; contentType: string; contentId: string | null; size: number }>;
  events: EmailEvent[];
}

/**
 * An account's email with its recipients, attachments and timeline, or undefined when the account has no
 * such email (an id that is not a UUID names none).
 */
export async function getEmailDetail(
  db: Queryable,
  account: string,
  id: string,
): Promise<EmailDetail | undefined> {
  const email = isUuid(id) ? await getEmail(db, account, id) : undefined;
  if (!email) return undefined;
  const [events, attachments] = await Promise.all([listEvents(db, id), loadAttachments(db, id)]);
  return {
    ...email,
    recipients: Object.entries(email.recipientResults).map(([address, result]) => ({ address, ...result })),
    attachments: attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      contentId: a.contentId ?? null,
      size: a.content.length,
    })),
    events,
  };
}

/**
 * One attachment of an account's email, by its position in the email's attachment list (as the detail lists
 * them), or undefined when the account has no such email or the email no such attachment.
 */
export async function getEmailAttachment(
  db: Queryable,
  account: string,
  id: string,
  index: number,
): Promise<{ filename: string; contentType: string; content: Buffer } | undefined> {
  if (!isUuid(id) || !Number.isInteger(index) || index < 0) return undefined;
  if (!(await getEmail(db, account, id))) return undefined;
  const attachment = (await loadAttachments(db, id))[index];
  return (
    attachment && {
      filename: attachment.filename,
      contentType: attachment.contentType,
      content: attachment.content,
    }
  );
}
