// The normaliser of a send request: checks what a JSON schema cannot (address syntax, header safety, limits,
// times) and turns the body into one item to accept. Its limits are in limits.ts.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { MailroomError } from "../errors/index.ts";
import { findUnstorableString } from "../text/index.ts";
import { formatMailbox, parseMailbox } from "./address.ts";
import { type AttachmentInput, validateAttachments } from "./attachments.ts";
import {
  HEADER_BREAK,
  invalid,
  MAX_HEADER_VALUE_LENGTH,
  MAX_HEADERS,
  MAX_RECIPIENTS,
  MAX_SCHEDULE_AHEAD_MS,
  MAX_TAGS,
} from "./limits.ts";
import { saysTlsRequiredNo } from "./tls-required.ts";
import type { AcceptItem, Tag } from "./types.ts";

export type { AttachmentInput } from "./attachments.ts";

/** The body of `POST /v1/send`, after JSON-schema validation of its types. */
export interface SendRequestBody {
  from: string;
  to: string | string[];
  cc?: string | string[];
  bcc?: string | string[];
  replyTo?: string | string[];
  subject?: string;
  html?: string;
  text?: string;
  /** A saved template to render instead of subject/html/text (rendered by the caller before this). */
  template?: { id?: string; name?: string; version?: number; variables?: Record<string, unknown> };
  category?: string;
  headers?: Record<string, string>;
  attachments?: AttachmentInput[];
  tags?: Tag[];
  idempotencyKey?: string;
  scheduledAt?: string;
  /** REQUIRETLS (RFC 8689): deliver only over verified TLS. */
  requireTls?: boolean;
}

export const MAX_SUBJECT_LENGTH = MAX_HEADER_VALUE_LENGTH;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;

/** SHA-256 of the canonical (RFC 8785) JSON of a request body without its idempotency key. */
export function canonicalBodyHash(body: object): Buffer {
  const { idempotencyKey: _ignored, ...rest } = body as Record<string, unknown>;
  return createHash("sha256")
    .update(canonicalize(rest) ?? "")
    .digest();
}

function mailboxes(field: string, value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const list = typeof value === "string" ? [value] : value;
  return list.map((entry, index) => {
    const mailbox = parseMailbox(entry);
    if (!mailbox)
      throw invalid(typeof value === "string" ? field : `${field}[${index}]`, "is not a valid address");
    return formatMailbox(mailbox);
  });
}

/** The idempotency key of a request: from the body or the `Idempotency-Key` header, never two different. */
export function resolveIdempotencyKey(bodyKey: string | undefined, headerKey: string | undefined) {
  if (bodyKey !== undefined && headerKey !== undefined && bodyKey !== headerKey) {
    throw invalid("idempotencyKey", "differs from the Idempotency-Key header; send one or make them equal");
  }
  const key = bodyKey ?? headerKey;
  if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new MailroomError(
      "invalid_idempotency_key",
      "idempotencyKey: 1 to 256 printable ASCII characters, no spaces",
    );
  }
  return key;
}

/** The template a send names, if any; refuses a request that also gives subject, html or text. */
export function requestedTemplate(body: SendRequestBody): SendRequestBody["template"] {
  if (body.template && (body.subject !== undefined || body.html !== undefined || body.text !== undefined)) {
    throw invalid("template", "give a template or subject/html/text, not both");
  }
  return body.template;
}

/**
 * Checks what a JSON schema cannot (address syntax, header safety, limits, times) and turns a send request
 * into an item to accept. Every rejection names the field.
 */
export function normalizeSendRequest(
  body: SendRequestBody,
  options: {
    headerIdempotencyKey?: string | undefined;
    now?: Date;
    /** The rendered template, when the body names one. */
    rendered?: { subject: string; html?: string | undefined; text?: string | undefined } | undefined;
  } = {},
): AcceptItem {
  // One walk over the whole body (template variables included) for what Postgres cannot store.
  assertStorableStrings(body);
  requestedTemplate(body);
  const content = options.rendered ?? { subject: body.subject, html: body.html, text: body.text };
  if (content.subject === undefined) throw invalid("subject", "is required (or give a template)");
  const subject = content.subject;
  const from = parseMailbox(body.from);
  if (!from) throw invalid("from", "must be an address or `Display Name <address>`");
  const to = mailboxes("to", body.to);
  if (to.length === 0) throw invalid("to", "must name at least one recipient");
  const cc = mailboxes("cc", body.cc);
  const bcc = mailboxes("bcc", body.bcc);
  if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) {
    throw invalid("to", `at most ${MAX_RECIPIENTS} recipients in to, cc and bcc together`);
  }
  const replyTo = mailboxes("replyTo", body.replyTo);
  if (HEADER_BREAK.test(subject)) throw invalid("subject", "must not contain CR, LF or NUL");
  if (subject.length > MAX_SUBJECT_LENGTH)
    throw invalid("subject", `at most ${MAX_SUBJECT_LENGTH} characters`);
  if (content.html === undefined && content.text === undefined)
    throw invalid("html", "give html, text or both");
  const category = body.category ?? "transactional";
  if (HEADER_BREAK.test(category)) throw invalid("category", "must not contain CR, LF or NUL");
  if (body.requireTls !== undefined && typeof body.requireTls !== "boolean") {
    throw invalid("requireTls", "must be true or false");
  }
  const idempotencyKey = resolveIdempotencyKey(body.idempotencyKey, options.headerIdempotencyKey);
  const headers = validateHeaders(body.headers);
  const tlsRequired = Object.entries(headers).find(([name]) => name.toLowerCase() === "tls-required");
  return {
    draft: {
      from: formatMailbox(from),
      fromAddress: from.address,
      to,
      cc,
      bcc,
      replyTo,
      subject,
      html: content.html,
      text: content.text,
      category,
      headers,
      attachments: validateAttachments(body.attachments),
      tags: validateTags(body.tags),
      scheduledAt: validateScheduledAt(body.scheduledAt, options.now ?? new Date()),
      ...(body.requireTls ? { requireTls: true } : {}),
      ...(saysTlsRequiredNo(tlsRequired?.[1]) ? { tlsRequiredNo: true } : {}),
    },
    idempotencyKey,
    bodySha256: idempotencyKey === undefined ? undefined : canonicalBodyHash(body),
  };
}

const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]{1,76}$/;
/** Headers Mailroom writes itself, or that would change routing, authentication or the MIME structure. */
const RESERVED_HEADERS = new Set([
  "from",
  "sender",
  "to",
  "cc",
  "bcc",
  // Resent-Bcc hides recipients like Bcc: a header would show them to everyone.
  "resent-bcc",
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
 * surrogates (not well-formed Unicode). Walks the whole body, so a template's variables are covered too. The
 * API refuses them earlier, at validation; this keeps the rule for every other caller of the use case.
 */
export function assertStorableStrings(value: unknown): void {
  const found = findUnstorableString(value);
  if (!found) return;
  const field = found.path
    .map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
  throw invalid(field || "body", found.problem);
}
