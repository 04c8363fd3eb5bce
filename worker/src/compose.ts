import type { Attachment, EmailRecord } from "@mailroom/core/emails";
import MailComposer from "nodemailer/lib/mail-composer";

/**
 * The RFC 5322 message for an email exactly as stored (what the log shows is what is sent). Bcc recipients
 * travel only in the envelope, never in a header. The Message-ID is the email's stable one, so a repeated
 * handover carries the same id.
 */
export async function composeMessage(
  email: EmailRecord,
  attachments: readonly Attachment[],
): Promise<Buffer> {
  const composer = new MailComposer({
    from: email.from,
    to: email.to,
    cc: email.cc.length > 0 ? email.cc : undefined,
    replyTo: email.replyTo.length > 0 ? email.replyTo : undefined,
    subject: email.subject,
    html: email.html ?? undefined,
    text: email.text ?? undefined,
    messageId: email.messageIdHeader,
    date: email.createdAt,
    headers: { ...email.headers, "X-Mailroom-Category": email.category },
    attachments: attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
  });
  return composer.compile().build();
}

/** The header block of a message: up to its first empty line. */
function headerBlock(raw: Buffer): string {
  const end = raw.indexOf("\r\n\r\n");
  return raw.subarray(0, end < 0 ? raw.length : end + 2).toString("latin1");
}

/**
 * A message submitted over SMTP, as sent: the client's bytes (its MIME structure, attachments and non-ASCII
 * untouched; the Bcc header was dropped at submission), with the Message-ID and Date a submission server
 * adds when the client left them out (RFC 6409 §8). The Message-ID is the email's stable one, as for an
 * API send.
 */
export function composeSubmitted(email: EmailRecord, raw: Buffer): Buffer {
  const headers = headerBlock(raw);
  const added: string[] = [];
  if (!/^message-id[ \t]*:/im.test(headers)) added.push(`Message-ID: ${email.messageIdHeader}\r\n`);
  if (!/^date[ \t]*:/im.test(headers)) {
    added.push(`Date: ${email.createdAt.toUTCString().replace("GMT", "+0000")}\r\n`);
  }
  return added.length === 0 ? raw : Buffer.concat([Buffer.from(added.join(""), "latin1"), raw]);
}
