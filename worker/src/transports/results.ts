import type { RecipientResult } from "./types.ts";

/** The fields nodemailer puts on an SMTP failure (`code` is its own, e.g. ECONNECTION or EENVELOPE). */
export interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

/** The per-recipient part of a successful nodemailer send. */
export interface SmtpSendInfo {
  accepted: Array<string | { address?: string }>;
  rejected: Array<string | { address?: string }>;
  rejectedErrors?: SmtpError[];
  response: string;
}

// nodemailer's codes for a refusal of the message itself (MAIL FROM, RCPT TO, DATA). Other 5xx replies
// (a failed login, a 554 greeting) say something about the connection or our setup, not this message,
// so bouncing on them would lose mail that a fixed configuration or another MX host would take.
const MESSAGE_REFUSALS = new Set(["EENVELOPE", "EMESSAGE"]);
// 5xx replies to MAIL FROM that are about the session: 503 bad sequence (RFC 5321 §4.2.4), 530 a relay
// wanting AUTH we did not give (RFC 4954 §6). A new session or a fixed configuration gets through.
const SESSION_REPLIES = new Set([503, 530]);

function statusOf(error: SmtpError, code: number | undefined): RecipientResult["status"] {
  const aboutSession = code !== undefined && SESSION_REPLIES.has(code);
  const messageRefused = !aboutSession && (error.code === undefined || MESSAGE_REFUSALS.has(error.code));
  return messageRefused && code !== undefined && code >= 500 && code < 600 ? "permanent" : "temporary";
}

function replyCode(response: string | undefined): number | undefined {
  const match = response?.match(/^([2-5]\d\d)/);
  return match?.[1] ? Number(match[1]) : undefined;
}

function address(entry: string | { address?: string }): string {
  return (typeof entry === "string" ? entry : (entry.address ?? "")).toLowerCase();
}

function fromRejection(recipient: string, errors: SmtpError[] | undefined, fallback: SmtpError) {
  const error = errors?.find((e) => e.recipient?.toLowerCase() === recipient.toLowerCase()) ?? fallback;
  return failureResult(recipient, error);
}

/** One recipient's result for a failure (a refused RCPT, or the whole transaction's error). */
export function failureResult(recipient: string, error: SmtpError): RecipientResult {
  const code = error.responseCode ?? replyCode(error.response);
  const response = error.response ?? error.message ?? "unknown SMTP failure";
  return { recipient, status: statusOf(error, code), ...(code === undefined ? {} : { code }), response };
}

/**
 * Per-recipient results from a nodemailer send: accepted and refused recipients of a completed
 * transaction, or, when it failed, the refused RCPTs when every one was refused and otherwise the same
 * outcome for all (a 4xx or lost connection at MAIL FROM or DATA defers them all, a 5xx bounces them all).
 */
export function toRecipientResults(
  recipients: readonly string[],
  outcome: { info: SmtpSendInfo } | { error: SmtpError },
): RecipientResult[] {
  if ("error" in outcome) {
    const { error } = outcome;
    return recipients.map((recipient) => fromRejection(recipient, error.rejectedErrors, error));
  }
  const { info } = outcome;
  const accepted = new Set(info.accepted.map(address));
  const code = replyCode(info.response);
  return recipients.map((recipient) =>
    accepted.has(recipient.toLowerCase())
      ? { recipient, status: "accepted", ...(code === undefined ? {} : { code }), response: info.response }
      : fromRejection(recipient, info.rejectedErrors, { response: "recipient not accepted by the server" }),
  );
}
