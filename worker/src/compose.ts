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
