import { storeReport } from "@mailroom/core/bounces";
import type { Pool } from "@mailroom/core/db";
import { findBounceDomainOwner } from "@mailroom/core/domains";
import type { Logger } from "@mailroom/core/telemetry";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { listenSmtpServer } from "../listen.ts";

export interface InboundReceiverOptions {
  host: string;
  port: number;
  /** The name the server greets with (its MX host name). */
  hostname: string;
  /** Largest report accepted, in bytes; larger ones are refused with 552 before anything is stored. */
  maxBytes: number;
  /** Certificate and key for opportunistic STARTTLS; without them STARTTLS is not offered. */
  tls?: { key: Buffer; cert: Buffer } | undefined;
}

export interface InboundReceiver {
  port: number;
  close(): Promise<void>;
}

/** Recipients per message: a report goes to one bounce address, a few at most. */
const MAX_RECIPIENTS = 10;

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

function readLimited(stream: SMTPServerDataStream, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is drained, not kept: a huge report costs bandwidth, not memory.
      if (size <= maxBytes) chunks.push(chunk);
    });
    stream.on("error", reject);
    stream.on("end", () =>
      resolve(stream.sizeExceeded || size > maxBytes ? undefined : Buffer.concat(chunks)),
    );
  });
}

/**
 * The inbound SMTP receiver for bounce and complaint reports. It accepts mail only for the bounce
 * (Return-Path) domains of verified domains and refuses every other recipient at RCPT (550 5.1.1), stores
 * each report with its `process_report` job in one transaction and only then answers 250: a 250 means the
 * report is durable. Parsing happens in the job, never in the session. A database failure answers 451, so
 * the sending MTA retries; nothing a client sends can crash the server.
 */
export async function startInboundReceiver(
  deps: { pool: Pool; logger: Logger },
  options: InboundReceiverOptions,
): Promise<InboundReceiver> {
  const log = deps.logger.child({ component: "inbound-smtp" });
  const server = new SMTPServer({
    name: options.hostname,
    banner: "Mailroom bounce receiver",
    authOptional: true,
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    size: options.maxBytes,
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        return callback(smtpError(452, "4.5.3 Too many recipients"));
      }
      const at = address.address.lastIndexOf("@");
      const domain = at === -1 ? "" : address.address.slice(at + 1);
      findBounceDomainOwner(deps.pool, domain).then(
        (owner) =>
          callback(
            owner ? null : smtpError(550, `5.1.1 <${address.address}>: not a bounce address served here`),
          ),
        (error: unknown) => {
          log.warn({ err: error }, "bounce domain lookup failed");
          callback(smtpError(451, "4.3.0 Temporary failure, try again later"));
        },
      );
    },
    onData(stream, session, callback) {
      receive(stream, session).then(
        (message) => callback(null, message),
        (error: Error) => callback(error),
      );
    },
  });

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const raw = await readLimited(stream, options.maxBytes);
    if (!raw) throw smtpError(552, `5.3.4 Message too big: reports are limited to ${options.maxBytes} bytes`);
    const rcptTo = session.envelope.rcptTo.map((r) => r.address);
    let id: string;
    try {
      id = await storeReport(deps.pool, {
        remoteAddress: session.remoteAddress,
        helo: session.hostNameAppearsAs || undefined,
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
        rcptTo,
        raw,
      });
    } catch (error) {
      log.warn({ err: error }, "storing a report failed");
      throw smtpError(451, "4.3.0 Temporary failure, try again later");
    }
    log.info({ reportId: id, bytes: raw.length, rcptTo }, "report received");
    return `2.0.0 Report queued as ${id}`;
  }

  server.on("error", (error) => log.warn({ err: error }, "SMTP connection error"));
  return listenSmtpServer(server, options.port, options.host);
}
