import type { ParsedMail } from "mailparser";
import { classify, type RecipientBounce } from "./classify.ts";
import { bareAddress } from "./fields.ts";

/**
 * Plain-text bounces, as qmail, older Exim set-ups and some large receivers still send instead of RFC 3464
 * DSNs. They are recognised by who sends them and what they say, and read for the failed addresses (Exim's
 * and Gmail's X-Failed-Recipients header, qmail's `<address>:` paragraphs, Exim's indented address lines)
 * and, after each address, the first enhanced status code or SMTP reply code. A message without a status
 * code is not treated as a bounce: an auto-reply must never suppress anyone.
 */
const BOUNCE_SENDER = /^(mailer-daemon|postmaster|mail-daemon|mail\.delivery\.system|mdaemon)@/i;
const BOUNCE_SUBJECT =
  /undeliver|delivery (status notification|failure|has failed)|returned mail|failure notice|mail delivery failed|delivery problem|non[- ]?remis|unzustellbar/i;
const ENHANCED = /\b([45])\.(\d{1,3})\.(\d{1,3})\b/;
const SMTP_REPLY = /(?:^|[\s:(])([45][0-5]\d)(?:[\s-]|$)/m;
const MAX_TEXT = 64 * 1024;
const MAX_RECIPIENTS = 100;

function failedAddresses(mail: ParsedMail, text: string): string[] {
  const header = mail.headers.get("x-failed-recipients");
  if (typeof header === "string") {
    return header
      .split(",")
      .map((v) => bareAddress(v))
      .filter((v): v is string => v !== undefined);
  }
  const found = new Set<string>();
  // qmail: `<user@example.com>:` at the start of a line. Exim: the address alone on an indented line.
  for (const match of text.matchAll(/^<([^<>\s]+@[^<>\s]+)>:\s*$|^ {2,}([^\s<>]+@[^\s<>]+)\s*$/gm)) {
    const address = bareAddress(match[1] ?? match[2]);
    if (address) found.add(address);
    if (found.size >= MAX_RECIPIENTS) break;
  }
  return [...found];
}

/** The first status after the address's mention (or anywhere, if it is not mentioned), with its line. */
function statusNear(text: string, address: string): { status?: string; code?: string; line?: string } {
  const at = text.toLowerCase().indexOf(address);
  const after = at === -1 ? text : text.slice(at + address.length);
  const enhanced = ENHANCED.exec(after);
  const reply = SMTP_REPLY.exec(after);
  const hit = enhanced ?? reply;
  if (!hit) return {};
  const start = after.lastIndexOf("\n", hit.index) + 1;
  const end = after.indexOf("\n", hit.index);
  const line = after.slice(start, end === -1 ? undefined : end).trim();
  return enhanced ? { status: enhanced[0], line } : { code: reply?.[1], line };
}

/** The bounce in a plain-text failure notice, or undefined when the message is not one. */
export function parseNonStandardBounce(
  mail: ParsedMail,
): { recipients: RecipientBounce[]; quotedMessageId: string | undefined } | undefined {
  const from = mail.from?.value[0]?.address ?? "";
  const looksLikeBounce =
    BOUNCE_SENDER.test(from) ||
    BOUNCE_SUBJECT.test(mail.subject ?? "") ||
    mail.headers.has("x-failed-recipients");
  if (!looksLikeBounce) return undefined;
  const text = (mail.text ?? "").slice(0, MAX_TEXT);
  const recipients: RecipientBounce[] = [];
  for (const recipient of failedAddresses(mail, text)) {
    const near = statusNear(text, recipient);
    const status = near.status ?? (near.code ? `${near.code[0]}.0.0` : undefined);
    if (!status) continue;
    const action = status.startsWith("4") ? "delayed" : "failed";
    recipients.push({
      recipient,
      action,
      status,
      diagnostic: near.line?.slice(0, 1000),
      remoteMta: undefined,
      class: classify(action, status),
    });
  }
  if (recipients.length === 0) return undefined;
  // qmail and Exim quote the original message in the text: its Message-ID is the fallback key.
  const quoted = /^Message-ID:\s*(<[^<>\s]+>)/im.exec(text);
  return { recipients, quotedMessageId: quoted?.[1] };
}
