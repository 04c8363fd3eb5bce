import { createHash } from "node:crypto";
import MailComposer from "nodemailer/lib/mail-composer";
import type { Attachment, EmailRecord } from "../emails/types.ts";
import { renderMime } from "./render.ts";

/**
 * Every line end of a text body as CRLF. A bare CR or LF would be signed as it is and rewritten to CRLF by
 * the next hop's SMTP layer, which breaks the DKIM body hash; normalised here, before signing, the bytes
 * signed are the bytes delivered.
 */
const crlf = (body: string | null) => body?.replace(/\r\n|\r|\n/g, "\r\n") ?? undefined;

/**
 * A `message/*` attachment is a message, which RFC 2046 §5.2 lets travel only as 7bit or 8bit text, never
 * base64 (the API refuses one that is not a valid message: `validateAttachments`); its line ends are made
 * CRLF like a body's.
 */
function attachmentOf(a: Attachment) {
  const part = {
    filename: a.filename,
    contentType: a.contentType,
    content: a.content,
    ...(a.contentId ? { cid: a.contentId } : {}),
  };
  if (!/^message\//i.test(a.contentType)) return part;
  const content = Buffer.from(a.content.toString("latin1").replace(/\r\n|\r|\n/g, "\r\n"), "latin1");
  return {
    ...part,
    content,
    contentDisposition: "attachment" as const,
    contentTransferEncoding: content.some((byte) => byte >= 0x80) ? "8bit" : "7bit",
  };
}

/**
 * The multipart boundaries' shared part, from the email's id instead of nodemailer's random bytes, so that
 * every composition of one email is the same bytes: each attempt, and the API's `/raw` beside what was
 * delivered (ADR 0071). It is still unguessable when the content is written: the id, with its random bits,
 * is made at accept, after the content is fixed. 16 hex digits, as nodemailer's own.
 */
const baseBoundaryOf = (emailId: string) => createHash("sha256").update(emailId).digest("hex").slice(0, 16);

/**
 * The RFC 5322 message for an email exactly as stored (what the log shows is what is sent). Bcc recipients
 * travel only in the envelope, never in a header. The Message-ID is the email's stable one, so a repeated
 * handover carries the same id, and so are its boundaries. nodemailer's MailComposer builds the MIME tree and
 * every header (address and encoded-word encoding, folding, boundaries, transfer encodings); the bytes are
 * then written in one synchronous pass, as MimeNode's own stream would write them, without a stream per MIME
 * part (ADR 0023).
 */
export function composeApiMessage(email: EmailRecord, attachments: readonly Attachment[]): Buffer {
  const composer = new MailComposer({
    from: email.from,
    to: email.to,
    cc: email.cc.length > 0 ? email.cc : undefined,
    replyTo: email.replyTo.length > 0 ? email.replyTo : undefined,
    subject: email.subject,
    html: crlf(email.html),
    text: crlf(email.text),
    messageId: email.messageIdHeader,
    date: email.createdAt,
    headers: { ...email.headers, "X-Mailroom-Category": email.category },
    attachments: attachments.map(attachmentOf),
    baseBoundary: baseBoundaryOf(email.id),
  });
  return renderMime(composer.compile());
}
