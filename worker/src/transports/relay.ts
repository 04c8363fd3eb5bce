import nodemailer from "nodemailer";
import { type SmtpError, type SmtpSendInfo, toRecipientResults } from "./results.ts";
import type { MailTransport, OutboundMessage } from "./types.ts";

/** Options for handing every message to one smarthost. */
export interface RelayTransportOptions {
  /** `smtp://[user:pass@]host:port` (STARTTLS when offered) or `smtps://…` (TLS from the first byte). */
  url: string;
  /** Most connections open to the smarthost at once. */
  maxConnections: number;
  /** Name sent with EHLO; nodemailer's default (the machine's host name) when unset. */
  heloName?: string;
  /** Extra CA certificates to trust for the smarthost (a private relay); the system store otherwise. */
  ca?: string | Buffer;
  connectTimeoutMs?: number;
  socketTimeoutMs?: number;
}

/**
 * A pooled transport to a smarthost. The smarthost's certificate is verified: unlike MX hosts it is a
 * configured, trusted next hop, often given credentials. Results are per recipient, so a relay that
 * refuses some RCPTs and accepts the rest is reported as such.
 */
export function createRelayTransport(options: RelayTransportOptions): MailTransport {
  const transporter = nodemailer.createTransport({
    url: options.url,
    pool: true,
    maxConnections: options.maxConnections,
    maxMessages: 1000,
    // A connection lost mid-send is put back at most once: a second loss is reported and graphile-worker
    // retries with backoff rather than the pool hammering a failing relay.
    maxRequeues: 1,
    ...(options.heloName ? { name: options.heloName } : {}),
    ...(options.ca ? { tls: { ca: options.ca } } : {}),
    connectionTimeout: options.connectTimeoutMs ?? 15_000,
    greetingTimeout: options.connectTimeoutMs ?? 15_000,
    socketTimeout: options.socketTimeoutMs ?? 60_000,
  });
  return {
    async send(message: OutboundMessage) {
      const recipients = message.envelope.to;
      try {
        // `raw` hands the signed bytes over untouched; nodemailer neither re-encodes nor adds headers.
        const info = (await transporter.sendMail({
          envelope: message.envelope,
          raw: message.raw,
        })) as unknown as SmtpSendInfo;
        return toRecipientResults(recipients, { info });
      } catch (caught) {
        return toRecipientResults(recipients, { error: caught as SmtpError });
      }
    },
    async close() {
      transporter.close();
    },
  };
}
