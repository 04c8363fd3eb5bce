import type { EmailRecord, EmailStatus } from "./types.ts";

/** An `emails` row as pg returns it. */
export interface EmailRow {
  id: string;
  account: string;
  api_key_id: string;
  status: EmailStatus;
  failure_reason: string | null;
  from_header: string;
  to_addresses: string[];
  subject: string;
  html: string | null;
  text: string | null;
  category: string;
  message_id_header: string;
  attempts: number;
  last_smtp_response: string | null;
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
    to: row.to_addresses,
    subject: row.subject,
    html: row.html,
    text: row.text,
    category: row.category,
    messageIdHeader: row.message_id_header,
    attempts: row.attempts,
    lastSmtpResponse: row.last_smtp_response,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
