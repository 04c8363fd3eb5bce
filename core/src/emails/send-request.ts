import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { MailroomError } from "../errors/index.ts";
import { formatMailbox, parseMailbox } from "./address.ts";
import type { AcceptItem } from "./types.ts";

/** The body of `POST /v1/send`, after JSON-schema validation of its types. */
export interface SendRequestBody {
  from: string;
  to: string | string[];
  subject: string;
  html?: string;
  text?: string;
  category?: string;
  idempotencyKey?: string;
}

export const MAX_RECIPIENTS = 50;
export const MAX_SUBJECT_LENGTH = 998;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;

const invalid = (field: string, message: string) =>
  new MailroomError("validation_error", `${field}: ${message}`);

// biome-ignore lint/suspicious/noControlCharactersInRegex: CR and LF in a header value would inject headers
const HEADER_BREAK = /[\r\n\u0000]/;

/** SHA-256 of the canonical (RFC 8785) JSON of a request body without its idempotency key. */
export function canonicalBodyHash(body: object): Buffer {
  const { idempotencyKey: _ignored, ...rest } = body as Record<string, unknown>;
  return createHash("sha256")
    .update(canonicalize(rest) ?? "")
    .digest();
}

/**
 * Checks what a JSON schema cannot (address syntax, header safety, limits) and turns a send request into an
 * item to accept. Every rejection names the field.
 */
export function normalizeSendRequest(body: SendRequestBody, headerIdempotencyKey?: string): AcceptItem {
  const from = parseMailbox(body.from);
  if (!from) throw invalid("from", "must be an address or `Display Name <address>`");
  const toList = typeof body.to === "string" ? [body.to] : body.to;
  if (toList.length === 0) throw invalid("to", "must name at least one recipient");
  if (toList.length > MAX_RECIPIENTS) throw invalid("to", `at most ${MAX_RECIPIENTS} recipients`);
  const to = toList.map((value, index) => {
    const mailbox = parseMailbox(value);
    if (!mailbox)
      throw invalid(typeof body.to === "string" ? "to" : `to[${index}]`, "is not a valid address");
    return formatMailbox(mailbox);
  });
  if (HEADER_BREAK.test(body.subject)) throw invalid("subject", "must not contain CR, LF or NUL");
  if (body.subject.length > MAX_SUBJECT_LENGTH) {
    throw invalid("subject", `at most ${MAX_SUBJECT_LENGTH} characters`);
  }
  if (body.html === undefined && body.text === undefined) throw invalid("html", "give html, text or both");
  const category = body.category ?? "transactional";
  if (HEADER_BREAK.test(category)) throw invalid("category", "must not contain CR, LF or NUL");

  if (
    body.idempotencyKey !== undefined &&
    headerIdempotencyKey !== undefined &&
    body.idempotencyKey !== headerIdempotencyKey
  ) {
    throw invalid("idempotencyKey", "differs from the Idempotency-Key header; send one or make them equal");
  }
  const idempotencyKey = body.idempotencyKey ?? headerIdempotencyKey;
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    throw new MailroomError(
      "invalid_idempotency_key",
      "idempotencyKey: 1 to 256 printable ASCII characters without spaces",
    );
  }
  return {
    draft: {
      from: formatMailbox(from),
      to,
      subject: body.subject,
      html: body.html,
      text: body.text,
      category,
    },
    idempotencyKey,
    bodySha256: idempotencyKey === undefined ? undefined : canonicalBodyHash(body),
  };
}
