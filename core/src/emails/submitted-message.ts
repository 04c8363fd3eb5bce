import { createHash } from "node:crypto";
import libmime from "libmime";
import { Headers } from "mailsplit";
import { formatMailbox, parseAddress, parseMailbox } from "./address.ts";
import { invalid, MAX_RECIPIENTS } from "./limits.ts";
import { MAX_SUBJECT_LENGTH } from "./send-request.ts";
import { saysTlsRequiredNo } from "./tls-required.ts";
import type { AcceptItem } from "./types.ts";

/** What an SMTP transaction hands over: the envelope and the message as the client wrote it. */
export interface Submission {
  /** MAIL FROM, '' for the null sender. Not used for delivery: the Return-Path is Mailroom's own. */
  mailFrom: string;
  /** RCPT TO addresses: the recipients, whatever the To, Cc or Bcc headers say. */
  recipients: readonly string[];
  message: Buffer;
  /** MAIL FROM:<…> REQUIRETLS (RFC 8689), which the door takes only over TLS: the email needs verified TLS. */
  requireTls?: boolean | undefined;
}

const MESSAGE_ID = /^<[\x21-\x3d\x3f-\x7e]{1,250}>$/;
const CRLF_CRLF = Buffer.from("\r\n\r\n");
// Headers naming recipients who must not be seen: they travel in the envelope only.
const HIDDEN = ["bcc", "resent-bcc"] as const;

/** A header value as text: the bytes are UTF-8 (RFC 6532) or ASCII with RFC 2047 encoded-words. */
const decoded = (value: string) => libmime.decodeWords(Buffer.from(value, "latin1").toString("utf8")).trim();

/** The one header of a name, refusing a message that repeats it. */
function single(headers: Headers, name: string): string | undefined {
  const lines = headers.get(name);
  if (lines.length > 1) throw invalid(name, "appears more than once");
  return lines.length === 0 ? undefined : headers.getFirst(name);
}

/**
 * The idempotency key of a submitted message: its Message-ID, scoped to SMTP (an API key of the same text
 * is another key). Hashed, so that any Message-ID fits the key's 256 printable characters.
 */
export const submissionIdempotencyKey = (messageId: string) =>
  `smtp:${createHash("sha256").update(messageId).digest("base64url")}`;

/**
 * Turns a message submitted over SMTP into an item to accept. The message is kept as written — headers,
 * MIME structure, attachments, inline parts and non-ASCII untouched — except its Bcc header, which is
 * dropped (and Resent-Bcc): recipients travel in the envelope only. The log describes it from its headers (From, Subject,
 * Message-ID) and lists the envelope recipients as `to`. A client's Message-ID is kept and makes the
 * submission idempotent: the same Message-ID with the same envelope and message within the idempotency
 * window is a duplicate (answered with the first email's id, sent once); with a different message it is
 * `idempotency_key_mismatch`. Every refusal is a `validation_error` naming the header.
 */
export function normalizeSubmittedMessage(submission: Submission): AcceptItem {
  const { message } = submission;
  if (message.includes(0)) throw invalid("message", "must not contain NUL bytes");
  const end = message.indexOf(CRLF_CRLF);
  const headerBytes = end < 0 ? message : message.subarray(0, end + 2);
  const body = end < 0 ? Buffer.alloc(0) : message.subarray(end + 2);
  const headers = new Headers(headerBytes);

  const fromHeader = single(headers, "from");
  if (fromHeader === undefined) throw invalid("From", "the message needs a From header");
  const from = parseMailbox(decoded(fromHeader));
  if (!from) throw invalid("From", "must be one address or `Display Name <address>`");
  const subject = decoded(single(headers, "subject") ?? "");
  if (subject.length > MAX_SUBJECT_LENGTH)
    throw invalid("Subject", `at most ${MAX_SUBJECT_LENGTH} characters`);
  const messageIdHeader = single(headers, "message-id");
  const messageId = messageIdHeader === undefined ? undefined : messageIdHeader.trim();
  if (messageId !== undefined && !MESSAGE_ID.test(messageId)) {
    throw invalid("Message-ID", "must be `<id@host>` in printable ASCII, at most 252 characters");
  }
  const to = submission.recipients.map((recipient, index) => {
    const address = parseAddress(recipient);
    if (!address) throw invalid(`recipients[${index}]`, "is not a valid address");
    return address;
  });
  if (to.length === 0) throw invalid("recipients", "give at least one RCPT TO");
  if (to.length > MAX_RECIPIENTS) throw invalid("recipients", `at most ${MAX_RECIPIENTS} recipients`);

  // Resent-Bcc (RFC 5322 §3.6.6) hides recipients of a resend exactly as Bcc does.
  const hadBcc = HIDDEN.some((name) => headers.get(name).length > 0);
  for (const name of HIDDEN) headers.remove(name);
  const raw = hadBcc ? Buffer.concat([headers.build(), body.subarray(2)]) : message;
  return {
    draft: {
      from: formatMailbox(from),
      fromAddress: from.address,
      to,
      cc: [],
      bcc: [],
      replyTo: [],
      subject,
      category: "transactional",
      headers: {},
      attachments: [],
      tags: [],
      raw,
      messageId,
      ...(submission.requireTls ? { requireTls: true } : {}),
      // The header stays in the message (RFC 8689 §5 lets it travel on); accept weighs it against REQUIRETLS.
      ...(saysTlsRequiredNo(headers.getFirst("tls-required")) ? { tlsRequiredNo: true } : {}),
    },
    idempotencyKey: messageId === undefined ? undefined : submissionIdempotencyKey(messageId),
    bodySha256:
      messageId === undefined
        ? undefined
        : createHash("sha256")
            // REQUIRETLS is part of what was submitted; the hash of a submission without it is unchanged.
            .update(
              JSON.stringify([
                submission.mailFrom,
                [...to].sort(),
                ...(submission.requireTls ? ["REQUIRETLS"] : []),
              ]),
            )
            .update(raw)
            .digest(),
  };
}
