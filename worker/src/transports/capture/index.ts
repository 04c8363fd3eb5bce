import { setTimeout as sleep } from "node:timers/promises";
import type { Pool } from "@mailroom/core/db";
import { captureMessage, decideChaos, loadChaosRules } from "@mailroom/core/sandbox";
import { envelopesOf, type MailTransport, type OutboundMessage, type RecipientResult } from "../types.ts";

/** The email a capture stands in for: its row in `sandbox_messages` names it and its account. */
export interface CapturedEmail {
  id: string;
  account: string;
  subject: string;
}

/** What an SMTP reply code means for a recipient, as the relay transport reads it. */
function failure(recipient: string, code: number | undefined, response: string): RecipientResult {
  const status = code !== undefined && code >= 500 ? "permanent" : "temporary";
  return code === undefined ? { recipient, status, response } : { recipient, status, code, response };
}

/**
 * The sandbox's transport (issue 30, ADR 0047): where a sandbox email's SMTP handover would be, it stores
 * each SMTP transaction (envelope sender, recipients, the exact signed bytes) in the account's inbox and
 * answers for every recipient as a server would (250 once the row is durable). Nothing is opened towards any
 * server. The account's chaos rules (ADR 0048) are applied where a server's replies would come; a database
 * failure (reading the rules or storing the capture) is a temporary result, so a rule is never skipped
 * silently. Either way the email's real retry plan, bounces and events follow.
 */
export function createCaptureTransport(
  pool: Pool,
  options: { random?: () => number } = {},
): { for(email: CapturedEmail): MailTransport } {
  const random = options.random ?? Math.random;
  return {
    for(email) {
      return {
        async send(message: OutboundMessage): Promise<RecipientResult[]> {
          const results: RecipientResult[] = [];
          let rules: Awaited<ReturnType<typeof loadChaosRules>>;
          try {
            rules = await loadChaosRules(pool, email.account);
          } catch (error) {
            const response = `chaos rules unavailable: ${(error as Error).message}`;
            return message.envelope.to.map((r) => failure(r, undefined, response));
          }
          for (const envelope of envelopesOf(message)) {
            const chaos = decideChaos(rules, envelope.to, random);
            if (chaos.delaySeconds > 0) await sleep(chaos.delaySeconds * 1000);
            const { failed } = chaos;
            if (failed) {
              results.push(...envelope.to.map((r) => failure(r, failed.code, failed.response)));
              continue;
            }
            for (const [r, code] of chaos.refused)
              results.push(failure(r, code, `${code} chaos: recipient refused at RCPT`));
            const accepted = envelope.to.filter((r) => !chaos.refused.has(r));
            if (accepted.length === 0) continue;
            try {
              const id = await captureMessage(pool, {
                emailId: email.id,
                account: email.account,
                envelopeFrom: envelope.from,
                recipients: accepted,
                subject: email.subject,
                raw: message.raw,
              });
              const response = `250 2.0.0 captured in the sandbox inbox as ${id}`;
              results.push(
                ...accepted.map((recipient) => ({
                  recipient,
                  status: "accepted" as const,
                  code: 250,
                  response,
                })),
              );
            } catch (error) {
              const response = `capture failed: ${(error as Error).message}`;
              results.push(...accepted.map((r) => failure(r, undefined, response)));
            }
          }
          return results;
        },
        async close() {},
      };
    },
  };
}
