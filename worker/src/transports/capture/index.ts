import type { Pool } from "@mailroom/core/db";
import { captureMessage } from "@mailroom/core/sandbox";
import { envelopesOf, type MailTransport, type OutboundMessage, type RecipientResult } from "../types.ts";

/** The email a capture stands in for: its row in `sandbox_messages` names it and its account. */
export interface CapturedEmail {
  id: string;
  account: string;
  subject: string;
}

/**
 * The sandbox's transport (issue 30, ADR 0047): where a sandbox email's SMTP handover would be, it stores
 * each SMTP transaction (envelope sender, recipients, the exact signed bytes) in the account's inbox and
 * answers for every recipient as a server would (250 once the row is durable). Nothing is opened towards any
 * server. A database failure is a temporary result, so the email's real retry plan takes over.
 */
export function createCaptureTransport(pool: Pool): { for(email: CapturedEmail): MailTransport } {
  return {
    for(email) {
      return {
        async send(message: OutboundMessage): Promise<RecipientResult[]> {
          const results: RecipientResult[] = [];
          for (const envelope of envelopesOf(message)) {
            try {
              const id = await captureMessage(pool, {
                emailId: email.id,
                account: email.account,
                envelopeFrom: envelope.from,
                recipients: envelope.to,
                subject: email.subject,
                raw: message.raw,
              });
              const response = `250 2.0.0 captured in the sandbox inbox as ${id}`;
              results.push(
                ...envelope.to.map((recipient) => ({
                  recipient,
                  status: "accepted" as const,
                  code: 250,
                  response,
                })),
              );
            } catch (error) {
              const response = `capture failed: ${(error as Error).message}`;
              results.push(
                ...envelope.to.map((recipient) => ({ recipient, status: "temporary" as const, response })),
              );
            }
          }
          return results;
        },
        async close() {},
      };
    },
  };
}
