import type { TlsPolicyExemption } from "../tls-reports/outcome.ts";

export const EMAIL_STATUSES = [
  "scheduled",
  "queued",
  "sending",
  "delivered",
  "deferred",
  "bounced",
  "failed",
  "canceled",
] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

export interface Attachment {
  filename: string;
  contentType: string;
  /** Set for inline parts referenced from the HTML as `cid:<contentId>`. */
  contentId?: string | undefined;
  content: Buffer;
}

export interface Tag {
  name: string;
  value: string;
}

/** A validated email, ready to be stored. Addresses are already parsed and normalised by the caller. */
export interface EmailDraft {
  /** The From header as it will be sent, e.g. `"Acme" <billing@acme.test>`. */
  from: string;
  /** The bare sender address (envelope sender, log filter). */
  fromAddress: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  html?: string | undefined;
  text?: string | undefined;
  category: string;
  headers: Record<string, string>;
  attachments: Attachment[];
  tags: Tag[];
  /** When set, the email is `scheduled` and leaves at this time. */
  scheduledAt?: Date | undefined;
  /** REQUIRETLS (RFC 8689): the email leaves only over verified TLS, or fails with that reason. */
  requireTls?: boolean | undefined;
  /** The message says `TLS-Required: No` (RFC 8689 §5): receivers' TLS policies are not applied to it. */
  tlsRequiredNo?: boolean | undefined;
  /** A message submitted over SMTP, sent as written (the fields above then only describe it for the log). */
  raw?: Buffer | undefined;
  /** The Message-ID header the client gave; absent, Mailroom makes one from the email id. */
  messageId?: string | undefined;
}

/** The door an email came through. */
export type EmailSource = "api" | "smtp";

/** One email to accept, with the idempotency material of the request that carried it. */
export interface AcceptItem {
  draft: EmailDraft;
  idempotencyKey?: string | undefined;
  /** SHA-256 of the canonical request body, compared when the idempotency key repeats. */
  bodySha256?: Buffer | undefined;
}

export type AcceptResult =
  | { status: "queued" | "scheduled"; messageId: string }
  | { status: "duplicate"; messageId: string }
  | { status: "idempotency_key_mismatch"; messageId: string };

export interface EmailEvent {
  type: string;
  at: Date;
  detail: Record<string, unknown>;
}

/** What the last attempts learned about one recipient: the next hop's verdict and its SMTP reply. */
export interface StoredRecipientResult {
  status: "accepted" | "temporary" | "permanent";
  code: number | null;
  response: string;
}

export interface EmailRecord {
  id: string;
  account: string;
  apiKeyId: string;
  status: EmailStatus;
  failureReason: string | null;
  from: string;
  fromAddress: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  headers: Record<string, string>;
  tags: Tag[];
  scheduledAt: Date | null;
  /** REQUIRETLS (RFC 8689): delivered only over verified TLS. */
  requireTls: boolean;
  /** Why receivers' TLS policies (MTA-STS, DANE) are not applied to it, if they are not. */
  tlsPolicyExempt: TlsPolicyExemption | null;
  subject: string;
  html: string | null;
  text: string | null;
  category: string;
  messageIdHeader: string;
  source: EmailSource;
  /** Captured in the account's dev inbox, never sent (decided at accept from the key and account, ADR 0047). */
  sandbox: boolean;
  /** Every recipient is a mailbox simulator address (ADR 0049): left out of reputation figures. */
  simulated: boolean;
  attempts: number;
  lastSmtpResponse: string | null;
  /** By recipient address; empty until the first attempt. */
  recipientResults: Record<string, StoredRecipientResult>;
  createdAt: Date;
  updatedAt: Date;
}
