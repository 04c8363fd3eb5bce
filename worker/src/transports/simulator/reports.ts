import MimeNode from "nodemailer/lib/mime-node";

/** What every simulated report needs to know about the copy of the email it answers. */
export interface ReportSubject {
  /** The simulator address this copy went to. */
  recipient: string;
  /** The copy's envelope sender: the recipient's VERP address, where every report goes (ADR 0026). */
  returnPath: string;
  /** The copy's header block as sent (signed), quoted by the report as a receiving MTA would. */
  headers: string;
  messageId: string;
  subject: string | undefined;
  /** The simulator domain: the reporting MTA's name. */
  domain: string;
  now: Date;
}

/** The quoted original: its headers with the Return-Path a receiving MTA adds at final delivery. */
const quotedHeaders = (s: ReportSubject) => `Return-Path: <${s.returnPath}>\r\n${s.headers.trimEnd()}\r\n`;

// A report part's fields (RFC 3464 §2.1, RFC 5965 §3.1) are plain 7-bit text lines: no encoding on the wire.
function fieldsPart(parent: MimeNode, type: string, groups: readonly string[][]) {
  parent
    .createChild(type)
    .setHeader("Content-Transfer-Encoding", "7bit")
    .setContent(`${groups.map((g) => g.join("\r\n")).join("\r\n\r\n")}\r\n`);
}

function reportRoot(s: ReportSubject, type: string, from: string, subject: string): MimeNode {
  return new MimeNode(type).setHeader({
    From: from,
    To: `<${s.returnPath}>`,
    Subject: subject,
    Date: s.now.toUTCString(),
    "Message-ID": `<${crypto.randomUUID()}@${s.domain}>`,
    "Auto-Submitted": "auto-replied",
    "MIME-Version": "1.0",
  });
}

/**
 * The DSN (RFC 3464) a receiving MTA sends after accepting a message for a mailbox that turns out not to
 * exist: `failed`, 5.1.1, quoting the original's headers. Built with nodemailer's MIME tree, as a real MTA's
 * report would be parsed by mailparser in the bounce receiver's processing.
 */
export function hardBounceReport(s: ReportSubject): Promise<Buffer> {
  const root = reportRoot(
    s,
    "multipart/report; report-type=delivery-status",
    `Mail Delivery Subsystem <mailer-daemon@${s.domain}>`,
    "Undelivered Mail Returned to Sender",
  );
  const diagnostic = `550 5.1.1 <${s.recipient}>: Recipient address rejected: User unknown (mailbox simulator)`;
  root
    .createChild("text/plain; charset=utf-8")
    .setContent(`Your message to <${s.recipient}> could not be delivered.\r\n\r\n${diagnostic}\r\n`);
  fieldsPart(root, "message/delivery-status", [
    [`Reporting-MTA: dns; ${s.domain}`, `Arrival-Date: ${s.now.toUTCString()}`],
    [
      `Original-Recipient: rfc822; ${s.recipient}`,
      `Final-Recipient: rfc822; ${s.recipient}`,
      "Action: failed",
      "Status: 5.1.1",
      `Remote-MTA: dns; ${s.domain}`,
      `Diagnostic-Code: smtp; ${diagnostic}`,
    ],
  ]);
  root.createChild("text/rfc822-headers").setContent(quotedHeaders(s));
  return root.build();
}

/**
 * The ARF complaint (RFC 5965) a mailbox provider's feedback loop sends when its user marks the message as
 * spam: `abuse`, naming the recipient and, as Original-Mail-From, the copy's VERP address.
 */
export function complaintReport(s: ReportSubject): Promise<Buffer> {
  const root = reportRoot(
    s,
    "multipart/report; report-type=feedback-report",
    `Feedback Loop <fbl@${s.domain}>`,
    "Abuse report (mailbox simulator)",
  );
  root
    .createChild("text/plain; charset=utf-8")
    .setContent(`This is an email abuse report for a message sent to <${s.recipient}>.\r\n`);
  fieldsPart(root, "message/feedback-report", [
    [
      "Feedback-Type: abuse",
      "User-Agent: Mailroom-Simulator/1.0",
      "Version: 1",
      `Original-Mail-From: <${s.returnPath}>`,
      `Original-Rcpt-To: <${s.recipient}>`,
      `Arrival-Date: ${s.now.toUTCString()}`,
      `Reporting-MTA: dns; ${s.domain}`,
    ],
  ]);
  root.createChild("text/rfc822-headers").setContent(quotedHeaders(s));
  return root.build();
}

/**
 * The vacation auto-reply (RFC 3834) of an out-of-office mailbox: sent to the Return-Path, as responders do,
 * so it reaches the bounce receiver like a real one, which must recognise it as no bounce.
 */
export function autoReply(s: ReportSubject): Promise<Buffer> {
  const root = new MimeNode("text/plain; charset=utf-8").setHeader({
    From: `<${s.recipient}>`,
    To: `<${s.returnPath}>`,
    Subject: `Out of office: ${s.subject ?? ""}`.trimEnd(),
    Date: s.now.toUTCString(),
    "Message-ID": `<${crypto.randomUUID()}@${s.domain}>`,
    "In-Reply-To": s.messageId,
    References: s.messageId,
    "Auto-Submitted": "auto-replied",
    "MIME-Version": "1.0",
  });
  root.setContent("Thank you for your message. I am out of the office and will reply when I am back.\r\n");
  return root.build();
}
