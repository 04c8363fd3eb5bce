import { type Attachment, type HeaderValue, type ParsedMail, simpleParser } from "mailparser";
import { classify, type RecipientBounce, STATUS } from "./classify.ts";
import { bareAddress, type FieldGroup, field, parseFieldGroups, untyped } from "./fields.ts";
import { parseNonStandardBounce } from "./non-standard.ts";

/** What identifies the original message inside a report, for finding the email it is about. */
export interface OriginalMessage {
  messageId: string | undefined;
  /** Addresses where a VERP token may be: the original's Return-Path and the report's Original-Mail-From. */
  envelopeSenders: string[];
  to: string[];
}

export type ParsedReport =
  | {
      kind: "bounce";
      format: "dsn" | "non_standard";
      reportingMta: string | undefined;
      recipients: RecipientBounce[];
      original: OriginalMessage;
    }
  | {
      kind: "complaint";
      /** RFC 5965 Feedback-Type: abuse, fraud, virus, other, not-spam … */
      feedbackType: string;
      userAgent: string | undefined;
      /** Original-Rcpt-To values; empty when the reporter redacted them. */
      recipients: string[];
      original: OriginalMessage;
    }
  | { kind: "unrecognised"; reason: string };

/** The report parts a parse looks into are small; a huge one is truncated rather than read whole. */
const MAX_PART_CHARS = 256 * 1024;

function partText(part: Attachment): string {
  return part.content.subarray(0, MAX_PART_CHARS).toString("utf8");
}

function isType(part: Attachment, ...types: string[]): boolean {
  return types.includes(part.contentType.toLowerCase());
}

/** mailparser hands address headers (Return-Path among them) back as an address object, not a string. */
function headerAddress(value: HeaderValue | undefined): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "value" in value && Array.isArray(value.value)) {
    return value.value[0]?.address ?? "";
  }
  return "";
}

/** Reads the headers of the original message (message/rfc822 or text/rfc822-headers part), if any. */
async function originalOf(mail: ParsedMail, extra: FieldGroup | undefined): Promise<OriginalMessage> {
  const part = mail.attachments.find((a) =>
    isType(a, "message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers"),
  );
  const senders: string[] = [];
  const fromReport = bareAddress(extra && field(extra, "original-mail-from"));
  if (fromReport) senders.push(fromReport);
  let messageId: string | undefined;
  const to: string[] = [];
  if (part) {
    const headers = await simpleParser(part.content.subarray(0, MAX_PART_CHARS), {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
    });
    messageId = headers.messageId;
    const returnPath = bareAddress(headerAddress(headers.headers.get("return-path")));
    if (returnPath) senders.push(returnPath);
    const toValue = headers.to;
    for (const group of Array.isArray(toValue) ? toValue : toValue ? [toValue] : []) {
      for (const address of group.value) if (address.address) to.push(address.address.toLowerCase());
    }
  }
  return { messageId, envelopeSenders: senders, to };
}

function parseDsn(status: string): { reportingMta: string | undefined; recipients: RecipientBounce[] } {
  const [perMessage, ...perRecipient] = parseFieldGroups(status);
  const recipients: RecipientBounce[] = [];
  for (const group of perRecipient) {
    const recipient = bareAddress(
      untyped(field(group, "final-recipient") ?? field(group, "original-recipient")),
    );
    const action = (field(group, "action") ?? "").toLowerCase().split(/\s/)[0] ?? "";
    if (!recipient || !action) continue;
    const statusCode = field(group, "status")?.split(/\s/)[0];
    const validStatus = statusCode && STATUS.test(statusCode) ? statusCode : undefined;
    recipients.push({
      recipient,
      action,
      status: validStatus,
      diagnostic: untyped(field(group, "diagnostic-code"))?.slice(0, 1000),
      remoteMta: untyped(field(group, "remote-mta")),
      class: classify(action, validStatus),
    });
  }
  return { reportingMta: perMessage && untyped(field(perMessage, "reporting-mta")), recipients };
}

/**
 * Parses a bounce or complaint report. MIME is mailparser's job; this reads only the report-specific
 * parts: a DSN's message/delivery-status (RFC 3464), an ARF report's message/feedback-report (RFC 5965), or,
 * for the plain-text bounces some large receivers still send, their text (see non-standard.ts). Never
 * throws on hostile input: what cannot be read is `unrecognised`, with the reason.
 */
export async function parseReport(raw: Buffer): Promise<ParsedReport> {
  let mail: ParsedMail;
  try {
    // keepDeliveryStatus: the delivery-status part as a part of its own, not merged into the text.
    mail = await simpleParser(raw, {
      keepDeliveryStatus: true,
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
    });
  } catch (error) {
    return { kind: "unrecognised", reason: `not a readable message: ${(error as Error).message}` };
  }
  const feedback = mail.attachments.find((a) => isType(a, "message/feedback-report"));
  if (feedback) {
    const [report] = parseFieldGroups(partText(feedback));
    if (!report) return { kind: "unrecognised", reason: "the feedback report has no fields" };
    return {
      kind: "complaint",
      feedbackType: (field(report, "feedback-type") ?? "other").toLowerCase(),
      userAgent: field(report, "user-agent"),
      recipients: (report.get("original-rcpt-to") ?? [])
        .map((v) => bareAddress(v))
        .filter((v): v is string => v !== undefined),
      original: await originalOf(mail, report),
    };
  }
  const status = mail.attachments.find((a) =>
    isType(a, "message/delivery-status", "message/global-delivery-status"),
  );
  if (status) {
    const dsn = parseDsn(partText(status));
    if (dsn.recipients.length === 0) {
      return { kind: "unrecognised", reason: "the delivery status names no recipient with an action" };
    }
    return { kind: "bounce", format: "dsn", ...dsn, original: await originalOf(mail, undefined) };
  }
  const plain = parseNonStandardBounce(mail);
  const original = await originalOf(mail, undefined);
  if (!plain) return { kind: "unrecognised", reason: "neither a DSN, an ARF report nor a known bounce text" };
  return {
    kind: "bounce",
    format: "non_standard",
    reportingMta: undefined,
    recipients: plain.recipients,
    original: { ...original, messageId: original.messageId ?? plain.quotedMessageId },
  };
}
