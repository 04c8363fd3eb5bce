import type { TlsPolicyExemption } from "../tls-reports/outcome.ts";
import type { EmailRecord, EmailSource, EmailStatus, StoredRecipientResult, Tag } from "./types.ts";

/** An `emails` row as pg returns it. */
export interface EmailRow {
  id: string;
  account: string;
  api_key_id: string;
  status: EmailStatus;
  failure_reason: string | null;
  from_header: string;
  from_address: string;
  to_addresses: string[];
  cc_addresses: string[];
  bcc_addresses: string[];
  reply_to: string[];
  custom_headers: Record<string, string>;
  tags: Tag[];
  scheduled_at: Date | null;
  require_tls: boolean;
  tls_policy_exempt: TlsPolicyExemption | null;
  subject: string;
  html: string | null;
  text: string | null;
  category: string;
  message_id_header: string;
  source: EmailSource;
  sandbox: boolean;
  simulated: boolean;
  attempts: number;
  last_smtp_response: string | null;
  /** Absent when a query does not select it. */
  recipient_results?: Record<string, StoredRecipientResult> | null;
  created_at: Date;
  updated_at: Date;
}

export function toEmailRecord(row: EmailRow): EmailRecord {
  return {
    id: row.id,
    account: row.account,
    apiKeyId: row.api_key_id,
    status: row.status,
    failureReason: row.failure_reason,
    from: row.from_header,
    fromAddress: row.from_address,
    to: row.to_addresses,
    cc: row.cc_addresses,
    bcc: row.bcc_addresses,
    replyTo: row.reply_to,
    headers: row.custom_headers,
    tags: row.tags,
    scheduledAt: row.scheduled_at,
    requireTls: row.require_tls,
    tlsPolicyExempt: row.tls_policy_exempt ?? null,
    subject: row.subject,
    html: row.html,
    text: row.text,
    category: row.category,
    messageIdHeader: row.message_id_header,
    source: row.source,
    sandbox: row.sandbox,
    simulated: row.simulated,
    attempts: row.attempts,
    lastSmtpResponse: row.last_smtp_response,
    recipientResults: row.recipient_results ?? {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
