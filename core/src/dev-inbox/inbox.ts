import { readdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import PostalMime, { type Address, type Email } from "postal-mime";

/**
 * The local run's captured mail: one `<id>.eml` file per message in one directory, written by the capture
 * SMTP server (`mailroom run`) and read by the API's dev-inbox routes, each with `<id>.owner` naming the
 * account whose email it was. Every read is scoped to one account, as the rest of the API (issue 26): a
 * message without an owner (one the capture could not attribute) is shown to nobody. This module owns the
 * directory's format: file names, owners, listing, parsing and deletion.
 */

const ID = /^[0-9A-Za-z-]{1,80}$/;

/** A fresh message id: sortable by arrival (ISO time, then a counter), safe as a file name and a URL segment. */
export function newInboxMessageId(at: Date, counter: number): string {
  return `${at.toISOString().replace(/[:.]/g, "-")}-${String(counter).padStart(4, "0")}`;
}

export function inboxMessageFile(dir: string, id: string): string {
  return path.join(dir, `${id}.eml`);
}

/** The file naming the account a captured message belongs to (written before the message itself). */
export function inboxOwnerFile(dir: string, id: string): string {
  return path.join(dir, `${id}.owner`);
}

async function ownerOf(dir: string, id: string): Promise<string | undefined> {
  try {
    return (await readFile(inboxOwnerFile(dir, id), "utf8")).trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
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
  account: string,
  id: string,
): Promise<{ email: Email; raw: Buffer; receivedAt: Date } | undefined> {
  if (!ID.test(id) || (await ownerOf(dir, id)) !== account) return undefined;
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

async function messageIds(dir: string, account: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  const ids = names
    .filter((n) => n.endsWith(".eml"))
    .map((n) => n.slice(0, -4))
    .filter((id) => ID.test(id));
  const owners = await Promise.all(ids.map((id) => ownerOf(dir, id)));
  return ids
    .filter((_, i) => owners[i] === account)
    .sort()
    .reverse();
}

/** The account's newest `limit` messages, newest first. */
export async function listInbox(dir: string, account: string, limit: number): Promise<InboxSummary[]> {
  const ids = (await messageIds(dir, account)).slice(0, limit);
  const parsed = await Promise.all(ids.map(async (id) => ({ id, found: await parse(dir, account, id) })));
  return parsed.flatMap(({ id, found }) =>
    found ? [summary(id, found.email, found.raw, found.receivedAt)] : [],
  );
}

/** One of the account's messages, parsed; undefined when it has no such message (or the id names none). */
export async function readInboxMessage(
  dir: string,
  account: string,
  id: string,
): Promise<InboxMessage | undefined> {
  const found = await parse(dir, account, id);
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
export async function readInboxRaw(dir: string, account: string, id: string): Promise<Buffer | undefined> {
  return (await parse(dir, account, id))?.raw;
}

/** One attachment's decoded bytes, name and type. */
export async function readInboxAttachment(
  dir: string,
  account: string,
  id: string,
  index: number,
): Promise<{ filename: string; contentType: string; content: Buffer } | undefined> {
  const attachment = (await parse(dir, account, id))?.email.attachments[index];
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

/** Deletes every message of the account; answers how many. */
export async function clearInbox(dir: string, account: string): Promise<number> {
  const ids = await messageIds(dir, account);
  await Promise.all(
    ids.map(async (id) => {
      await rm(inboxMessageFile(dir, id), { force: true });
      await rm(inboxOwnerFile(dir, id), { force: true });
    }),
  );
  return ids.length;
}
