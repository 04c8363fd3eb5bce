import type { EmailRecord } from "../emails/types.ts";

/** The header block of a message: up to its first empty line. */
function headerBlock(raw: Buffer): string {
  const end = raw.indexOf("\r\n\r\n");
  return raw.subarray(0, end < 0 ? raw.length : end + 2).toString("latin1");
}

/**
 * A message submitted over SMTP, as sent: the client's bytes (its MIME structure, attachments and non-ASCII
 * untouched; the Bcc and Resent-Bcc headers were dropped and bare LFs made CRLF at submission), with the
 * Message-ID and Date a submission server adds when the client left them out (RFC 6409 §8). The Message-ID is
 * the email's stable one, as for an API send.
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
