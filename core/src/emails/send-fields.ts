import { MailroomError } from "../errors/index.ts";
import type { Attachment, Tag } from "./types.ts";

export const MAX_HEADERS = 50;
export const MAX_ATTACHMENTS = 20;
export const MAX_TAGS = 20;
/**
 * The longest header value (custom headers, subject) that is always delivered within RFC 5322's 998-character
 * line: a value with no whitespace cannot be folded, so it goes alone on a continuation line after one space.
 */
export const MAX_HEADER_VALUE_LENGTH = 997;
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

export const invalid = (field: string, message: string) =>
  new MailroomError("validation_error", `${field}: ${message}`);

// biome-ignore lint/suspicious/noControlCharactersInRegex: CR, LF and NUL in a header value would inject headers
export const HEADER_BREAK = /[\r\n\u0000]/;
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]{1,76}$/;
/** Headers Mailroom writes itself, or that would change routing, authentication or the MIME structure. */
const RESERVED_HEADERS = new Set([
  "from",
  "sender",
  "to",
  "cc",
  "bcc",
  "reply-to",
  "subject",
  "date",
  "message-id",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
  "content-disposition",
  "return-path",
  "received",
  "dkim-signature",
  "arc-seal",
  "arc-message-signature",
  "arc-authentication-results",
  "authentication-results",
  "x-mailroom-category",
]);

/** Custom headers: safe field names, single-line values, none Mailroom owns. */
export function validateHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  if (!headers) return {};
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) throw invalid("headers", `at most ${MAX_HEADERS} headers`);
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!FIELD_NAME.test(name)) throw invalid(`headers.${name}`, "is not a valid header name");
    if (RESERVED_HEADERS.has(lower))
      throw invalid(`headers.${name}`, "is set by Mailroom and cannot be given");
    if (seen.has(lower)) throw invalid(`headers.${name}`, "is given twice");
    seen.add(lower);
    if (HEADER_BREAK.test(value)) throw invalid(`headers.${name}`, "must not contain CR, LF or NUL");
    if (value.length > MAX_HEADER_VALUE_LENGTH)
      throw invalid(`headers.${name}`, `at most ${MAX_HEADER_VALUE_LENGTH} characters`);
  }
  return { ...headers };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const CONTENT_ID = /^[\x21-\x3b\x3d\x3f-\x7e]{1,200}$/;

export interface AttachmentInput {
  filename: string;
  content: string;
  contentType?: string;
  contentId?: string;
}

/** Attachments: strict base64 content, a filename without path or line breaks, a MIME type. */
export function validateAttachments(attachments: AttachmentInput[] | undefined): Attachment[] {
  if (!attachments) return [];
  if (attachments.length > MAX_ATTACHMENTS) throw invalid("attachments", `at most ${MAX_ATTACHMENTS}`);
  return attachments.map((a, i) => {
    const field = `attachments[${i}]`;
    if (HEADER_BREAK.test(a.filename) || /[/\\]/.test(a.filename) || a.filename.trim() === "") {
      throw invalid(`${field}.filename`, "a file name without path separators or line breaks");
    }
    if (!BASE64.test(a.content))
      throw invalid(`${field}.content`, "must be base64 (RFC 4648, no line breaks)");
    const contentType = a.contentType ?? "application/octet-stream";
    if (!MIME_TYPE.test(contentType))
      throw invalid(`${field}.contentType`, "must be a MIME type like image/png");
    if (a.contentId !== undefined && !CONTENT_ID.test(a.contentId)) {
      throw invalid(`${field}.contentId`, "printable characters without <, > or spaces");
    }
    return {
      filename: a.filename,
      contentType,
      contentId: a.contentId,
      content: Buffer.from(a.content, "base64"),
    };
  });
}

const TAG_PART = /^[A-Za-z0-9_-]{1,256}$/;

/** Tags: ASCII letters, digits, `_` and `-`, so they filter and export cleanly. */
export function validateTags(tags: Tag[] | undefined): Tag[] {
  if (!tags) return [];
  if (tags.length > MAX_TAGS) throw invalid("tags", `at most ${MAX_TAGS}`);
  const names = new Set<string>();
  return tags.map((tag, i) => {
    if (!TAG_PART.test(tag.name)) throw invalid(`tags[${i}].name`, "1-256 of A-Z a-z 0-9 _ -");
    if (!TAG_PART.test(tag.value)) throw invalid(`tags[${i}].value`, "1-256 of A-Z a-z 0-9 _ -");
    if (names.has(tag.name)) throw invalid(`tags[${i}].name`, "is given twice");
    names.add(tag.name);
    return { name: tag.name, value: tag.value };
  });
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** `scheduledAt`: an RFC 3339 time with an offset, not in the past, at most 30 days ahead. */
export function validateScheduledAt(value: string | undefined, now: Date): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  const [, year, month, day] = RFC3339.exec(value) ?? [];
  // Date rolls impossible days over (June 31 -> July 1); RFC 3339 refuses them.
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (
    !year ||
    Number.isNaN(at.getTime()) ||
    calendar.getUTCDate() !== Number(day) ||
    calendar.getUTCMonth() !== Number(month) - 1
  ) {
    throw invalid("scheduledAt", "an RFC 3339 time with an offset, e.g. 2030-01-01T09:00:00Z");
  }
  if (at.getTime() < now.getTime()) throw invalid("scheduledAt", "is in the past");
  if (at.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS)
    throw invalid("scheduledAt", "at most 30 days ahead");
  return at;
}

/**
 * Refuses strings Postgres cannot store or that no mail system should carry: NUL anywhere, and lone UTF-16
 * surrogates (not well-formed Unicode). Walks the whole body, so a template's variables are covered too.
 */
export function assertStorableStrings(value: unknown, path = "body"): void {
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw invalid(path, "holds a lone surrogate (invalid UTF-16)");
    if (value.includes("\u0000")) throw invalid(path, "must not contain NUL");
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) assertStorableStrings(item, `${path}[${i}]`);
    return;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const child = path === "body" ? key : `${path}.${key}`;
      assertStorableStrings(key, child);
      assertStorableStrings(item, child);
    }
  }
}
