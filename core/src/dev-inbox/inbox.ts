import { readdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import PostalMime, { type Address, type Email } from "postal-mime";

/**
 * The local run's captured mail: one `<id>.eml` file per message in one directory, written by the capture
 * SMTP server (`mailroom run`) and read by the API's dev-inbox routes. This module owns the directory's
 * format: file names, listing, parsing and deletion.
 */

const ID = /^[0-9A-Za-z-]{1,80}$/;

/** A fresh message id: sortable by arrival (ISO time, then a counter), safe as a file name and a URL segment. */
export function newInboxMessageId(at: Date, counter: number): string {
  return `${at.toISOString().replace(/[:.]/g, "-")}-${String(counter).padStart(4, "0")}`;
}

export function inboxMessageFile(dir: string, id: string): string {
  return path.join(dir, `${id}.eml`);
}

export interface InboxSummary {
  id: string;
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
  attachments: Array<{ index: number; filename: string; contentType: string; size: number }>;
}

function addresses(list: Address[] | undefined): string[] {
  return (list ?? [])
    .flatMap((a) => (a.group ? a.group : [a]))
    .map((m) => (m.name ? `${m.name} <${m.address}>` : m.address));
}

async function parse(
  dir: string,
  id: string,
): Promise<{ email: Email; raw: Buffer; receivedAt: Date } | undefined> {
  if (!ID.test(id)) return undefined;
  const file = inboxMessageFile(dir, id);
  try {
    const [raw, info] = await Promise.all([readFile(file), stat(file)]);
    return { email: await PostalMime.parse(raw), raw, receivedAt: info.mtime };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function summary(id: string, email: Email, raw: Buffer, receivedAt: Date): InboxSummary {
  return {
    id,
    from: addresses(email.from ? [email.from] : undefined)[0] ?? "",
    to: addresses([...(email.to ?? []), ...(email.cc ?? [])]),
    subject: email.subject ?? "",
    date: email.date && !Number.isNaN(Date.parse(email.date)) ? new Date(email.date).toISOString() : null,
    receivedAt: receivedAt.toISOString(),
    size: raw.length,
  };
}

async function messageIds(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  return names
    .filter((n) => n.endsWith(".eml"))
    .map((n) => n.slice(0, -4))
    .filter((id) => ID.test(id))
    .sort()
    .reverse();
}

/** The newest `limit` messages, newest first. */
export async function listInbox(dir: string, limit: number): Promise<InboxSummary[]> {
  const ids = (await messageIds(dir)).slice(0, limit);
  const parsed = await Promise.all(ids.map(async (id) => ({ id, found: await parse(dir, id) })));
  return parsed.flatMap(({ id, found }) =>
    found ? [summary(id, found.email, found.raw, found.receivedAt)] : [],
  );
}

/** One message, parsed; undefined when there is no such message (or the id could not name one). */
export async function readInboxMessage(dir: string, id: string): Promise<InboxMessage | undefined> {
  const found = await parse(dir, id);
  if (!found) return undefined;
  const { email, raw, receivedAt } = found;
  return {
    ...summary(id, email, raw, receivedAt),
    html: email.html ?? null,
    text: email.text ?? null,
    headers: email.headers.map((h) => ({ name: h.originalKey, value: h.value })),
    attachments: email.attachments.map((a, index) => ({
      index,
      filename: a.filename ?? `attachment-${index + 1}`,
      contentType: a.mimeType,
      size: typeof a.content === "string" ? Buffer.byteLength(a.content) : a.content.byteLength,
    })),
  };
}

/** The message exactly as it was received. */
export async function readInboxRaw(dir: string, id: string): Promise<Buffer | undefined> {
  return (await parse(dir, id))?.raw;
}

/** One attachment's decoded bytes, name and type. */
export async function readInboxAttachment(
  dir: string,
  id: string,
  index: number,
): Promise<{ filename: string; contentType: string; content: Buffer } | undefined> {
  const attachment = (await parse(dir, id))?.email.attachments[index];
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

/** Deletes every captured message; answers how many. */
export async function clearInbox(dir: string): Promise<number> {
  const ids = await messageIds(dir);
  await Promise.all(ids.map((id) => rm(inboxMessageFile(dir, id), { force: true })));
  return ids.length;
}
