import type { EmailEvent, EmailRecord } from "@mailroom/core/emails";

/** An email as the log shows it in a list: no bodies. */
export function presentSummary(email: EmailRecord) {
  return {
    id: email.id,
    status: email.status,
    source: email.source,
    failureReason: email.failureReason,
    from: email.from,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    replyTo: email.replyTo,
    subject: email.subject,
    category: email.category,
    tags: email.tags,
    scheduledAt: email.scheduledAt?.toISOString() ?? null,
    attempts: email.attempts,
    lastSmtpResponse: email.lastSmtpResponse,
    createdAt: email.createdAt.toISOString(),
    updatedAt: email.updatedAt.toISOString(),
  };
}

/** One email in full: what was sent, and its timeline. */
export function presentDetail(
  email: EmailRecord,
  events: EmailEvent[],
  attachments: Array<{
    filename: string;
    contentType: string;
    contentId?: string | undefined;
    content: Buffer;
  }>,
) {
  return {
    ...presentSummary(email),
    messageIdHeader: email.messageIdHeader,
    html: email.html,
    text: email.text,
    headers: email.headers,
    recipients: Object.entries(email.recipientResults).map(([address, r]) => ({
      address,
      status: r.status,
      code: r.code,
      response: r.response,
    })),
    attachments: attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      contentId: a.contentId ?? null,
      size: a.content.length,
    })),
    events: events.map((e) => ({ type: e.type, at: e.at.toISOString(), detail: e.detail })),
  };
}
