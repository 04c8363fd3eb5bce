import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { MailroomError } from "../errors/index.ts";
import { formatMailbox, parseMailbox } from "./address.ts";
import {
  type AttachmentInput,
  assertStorableStrings,
  HEADER_BREAK,
  invalid,
  MAX_HEADER_VALUE_LENGTH,
  validateAttachments,
  validateHeaders,
  validateScheduledAt,
  validateTags,
} from "./send-fields.ts";
import type { AcceptItem, Tag } from "./types.ts";

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
}

export const MAX_RECIPIENTS = 50;
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
  const idempotencyKey = resolveIdempotencyKey(body.idempotencyKey, options.headerIdempotencyKey);
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
      headers: validateHeaders(body.headers),
      attachments: validateAttachments(body.attachments),
      tags: validateTags(body.tags),
      scheduledAt: validateScheduledAt(body.scheduledAt, options.now ?? new Date()),
    },
    idempotencyKey,
    bodySha256: idempotencyKey === undefined ? undefined : canonicalBodyHash(body),
  };
}
