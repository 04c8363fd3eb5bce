import PostalMime, { type Address, type Email } from "postal-mime";
import type { Queryable } from "../db/pool.ts";
import { type CapturedFilter, deleteCaptured, findCaptured, listCaptured } from "../sandbox/store.ts";

/**
 * The dev inbox (issue 30, ADR 0047): each account's captured mail (`sandbox_messages`, core/src/sandbox),
 * parsed for reading. Every install has it: sandbox keys and accounts fill it through the worker's capture
 * transport, `mailroom run` through its local SMTP capture. Every read is one account's (issue 26).
 */

export interface InboxSummary {
  id: string;
  emailId: string;
  envelopeFrom: string;
  recipients: string[];
  from: string;
  to: string[];
  subject: string;
  date: string | null;
  receivedAt: string;
  size: number;
}

export interface InboxMessage extends InboxSummary {
  html: string | null;
  text: string | null;
  headers: Array<{ name: string; value: string }>;
  attachments: Array<{
    index: number;
    filename: string;
    contentType: string;
    contentId: string | null;
    size: number;
  }>;
}

function addresses(list: Address[] | undefined): string[] {
  return (list ?? [])
    .flatMap((a) => (a.group ? a.group : [a]))
    .map((m) => (m.name ? `${m.name} <${m.address}>` : m.address));
}

interface Parsed {
  row: CapturedRow;
  email: Email;
}

type CapturedRow = NonNullable<Awaited<ReturnType<typeof findCaptured>>>;

async function parse(row: CapturedRow): Promise<Parsed> {
  return { row, email: await PostalMime.parse(row.raw) };
}

async function parseOne(db: Queryable, account: string, id: string): Promise<Parsed | undefined> {
  const row = await findCaptured(db, account, id);
  return row ? parse(row) : undefined;
}

function summary({ row, email }: Parsed): InboxSummary {
  return {
    id: row.id,
    emailId: row.emailId,
    envelopeFrom: row.envelopeFrom,
    recipients: row.recipients,
    from: addresses(email.from ? [email.from] : undefined)[0] ?? "",
    to: addresses([...(email.to ?? []), ...(email.cc ?? [])]),
    subject: email.subject ?? "",
    date: email.date && !Number.isNaN(Date.parse(email.date)) ? new Date(email.date).toISOString() : null,
    receivedAt: row.receivedAt.toISOString(),
    size: row.raw.length,
  };
}

/** The account's newest `limit` messages that match the filter, newest first. */
export async function listInbox(
  db: Queryable,
  account: string,
  limit: number,
  filter: CapturedFilter = {},
): Promise<InboxSummary[]> {
  const rows = await listCaptured(db, account, filter, limit);
  return Promise.all(rows.map(async (row) => summary(await parse(row))));
}

/** One of the account's messages, parsed; undefined when it has no such message (or the id names none). */
export async function readInboxMessage(
  db: Queryable,
  account: string,
  id: string,
): Promise<InboxMessage | undefined> {
  const found = await parseOne(db, account, id);
  if (!found) return undefined;
  const { email } = found;
  return {
    ...summary(found),
    html: email.html ?? null,
    text: email.text ?? null,
    headers: email.headers.map((h) => ({ name: h.originalKey, value: h.value })),
    attachments: email.attachments.map((a, index) => ({
      index,
      filename: a.filename ?? `attachment-${index + 1}`,
      contentType: a.mimeType,
      // Without its angle brackets, as a `cid:` URL names it (RFC 2392).
      contentId: a.contentId ? a.contentId.replace(/^<|>$/g, "") : null,
      size: typeof a.content === "string" ? Buffer.byteLength(a.content) : a.content.byteLength,
    })),
  };
}

/** The message exactly as it was captured (the signed bytes the worker would have sent). */
export async function readInboxRaw(db: Queryable, account: string, id: string): Promise<Buffer | undefined> {
  return (await findCaptured(db, account, id))?.raw;
}

/** One attachment's decoded bytes, name and type. */
export async function readInboxAttachment(
  db: Queryable,
  account: string,
  id: string,
  index: number,
): Promise<{ filename: string; contentType: string; content: Buffer } | undefined> {
  const attachment = (await parseOne(db, account, id))?.email.attachments[index];
  if (!attachment) return undefined;
  const content =
    typeof attachment.content === "string"
      ? Buffer.from(attachment.content)
      : Buffer.from(attachment.content as ArrayBuffer);
  return {
    filename: attachment.filename ?? `attachment-${index + 1}`,
    contentType: attachment.mimeType,
    content,
  };
}

/** Deletes the account's messages that match the filter (all, without one); answers how many. */
export function clearInbox(db: Queryable, account: string, filter: CapturedFilter = {}): Promise<number> {
  return deleteCaptured(db, account, filter);
}
