import { setTimeout as sleep } from "node:timers/promises";
import { storeReport } from "@mailroom/core/bounces";
import type { Pool } from "@mailroom/core/db";
import { type SimulatorMailbox, simulatorMailboxOf } from "@mailroom/core/simulator";
import type { MailTransport, OutboundMessage, RecipientResult } from "../types.ts";
import { autoReply, complaintReport, hardBounceReport, type ReportSubject } from "./reports.ts";

export interface SimulatorOptions {
  pool: Pool;
  /** The simulator domain; undefined: the simulator is off and every message goes to `real`. */
  domain: string | undefined;
  /** How long delayed@ takes to say 250. */
  delaySeconds: number;
}

/** Shown as the report's remote address in `inbound_reports`: it came from no network peer. */
const SIMULATOR_PEER = "mailbox-simulator";

type Reply = Omit<RecipientResult, "recipient">;

const OK: Reply = { status: "accepted", code: 250, response: "250 2.0.0 OK: queued (mailbox simulator)" };

/** The SMTP answer the simulator's receiving MTA gives a recipient, as a real next hop's RCPT/DATA would. */
async function answer(mailbox: SimulatorMailbox | "unknown", attempt: number, delaySeconds: number) {
  switch (mailbox) {
    case "soft-bounced":
      // A greylisting-style 4xx on the first attempt; the retry is accepted.
      return attempt <= 1
        ? ({
            status: "temporary",
            code: 451,
            response: "451 4.2.0 Mailbox busy, try again later (mailbox simulator)",
          } satisfies Reply)
        : OK;
    case "delayed":
      await sleep(delaySeconds * 1000);
      return { ...OK, response: "250 2.0.0 OK: queued after a slow answer (mailbox simulator)" };
    case "unknown":
      return { ...OK, response: "250 2.0.0 OK: unknown simulator mailbox, delivered as delivered@" };
    default:
      // bounced@, complained@, out-of-office@ accept first and report later (afterRecord); delivered@ just
      // accepts; suppressed@ never gets here unless its suppression was deleted since the accept.
      return OK;
  }
}

const LATER_REPORTS: Partial<Record<SimulatorMailbox, (s: ReportSubject) => Promise<Buffer>>> = {
  bounced: hardBounceReport,
  complained: complaintReport,
  "out-of-office": autoReply,
};

function headerBlock(raw: Buffer): string {
  const text = raw.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  return end === -1 ? text : text.slice(0, end);
}

const subjectOf = (headers: string) =>
  /^subject:[ \t]*(.*(?:\r\n[ \t].*)*)/im.exec(headers)?.[1]?.replace(/\r\n[ \t]/g, " ");

/**
 * The mailbox simulator (issue 30 item 3, ADR 0049) in front of the real transport: recipients on the
 * simulator domain are answered here, as a receiving MTA would answer them, and never reach DNS or SMTP;
 * the others go to `real`, and the two reports are merged in the message's recipient order. What a real
 * mailbox would send back later (a DSN, an ARF complaint, an auto-reply) is built as a real MIME message
 * and stored as an inbound report with its `process_report` job, once the attempt is recorded: the bounce
 * receiver's processing does the rest, through its own code path.
 */
export function withSimulator(real: MailTransport, options: SimulatorOptions): MailTransport {
  const { domain } = options;
  if (domain === undefined) return real;
  const mailboxOf = (recipient: string) => simulatorMailboxOf(recipient, domain);
  return {
    async send(message: OutboundMessage) {
      const simulated = message.envelope.to.filter((r) => mailboxOf(r) !== undefined);
      if (simulated.length === 0) return real.send(message);
      const others = message.envelope.to.filter((r) => mailboxOf(r) === undefined);
      const [fromReal, fromSimulator] = await Promise.all([
        others.length > 0 ? real.send({ ...message, envelope: { ...message.envelope, to: others } }) : [],
        Promise.all(
          simulated.map(async (recipient) => ({
            recipient,
            ...(await answer(mailboxOf(recipient) ?? "unknown", message.attempt ?? 1, options.delaySeconds)),
          })),
        ),
      ]);
      const byRecipient = new Map([...fromReal, ...fromSimulator].map((r) => [r.recipient, r]));
      return message.envelope.to.flatMap((r) => byRecipient.get(r) ?? []);
    },
    async afterRecord(message, results) {
      const headers = headerBlock(message.raw);
      for (const result of results) {
        const mailbox = mailboxOf(result.recipient);
        const build = mailbox && mailbox !== "unknown" ? LATER_REPORTS[mailbox] : undefined;
        if (!build || result.status !== "accepted") continue;
        const returnPath = message.envelope.from(result.recipient);
        const raw = await build({
          recipient: result.recipient,
          returnPath,
          headers,
          messageId: message.messageId,
          subject: subjectOf(headers),
          domain,
          now: new Date(),
        });
        // Reports come with a null sender (MAIL FROM:<>) to the copy's VERP address, as over the wire.
        await storeReport(options.pool, {
          remoteAddress: SIMULATOR_PEER,
          helo: domain,
          mailFrom: undefined,
          rcptTo: [returnPath],
          raw,
        });
      }
      await real.afterRecord?.(message, results);
    },
    close: () => real.close(),
  };
}
