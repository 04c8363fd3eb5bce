import { buffer } from "node:stream/consumers";
import type { Queryable } from "@mailroom/core/db";
import { findSendingEmail } from "@mailroom/core/emails";
import { captureMessage } from "@mailroom/core/sandbox";
import { listenSmtpServer } from "@mailroom/smtp";
import { SMTPServer } from "smtp-server";

export interface SmtpCapture {
  port: number;
  close(): Promise<void>;
}

/** One SMTP transaction the capture received. */
export interface ReceivedMessage {
  envelopeFrom: string;
  recipients: string[];
  raw: Buffer;
}

/** The Message-ID header of a raw message (its header block only), if it has one. */
export function messageIdOf(raw: Buffer): string | undefined {
  const end = raw.indexOf("\r\n\r\n");
  const headers = raw.subarray(0, end < 0 ? raw.length : end).toString("latin1");
  return /^message-id[ \t]*:[ \t]*(<[^>\r\n]*>)/im.exec(headers)?.[1];
}

/**
 * The local run's store: the message goes into the dev inbox (`sandbox_messages`) of the account whose email
 * is being sent under its Message-ID. A message no email claims (another client, a Message-ID two accounts
 * share) is dropped: nobody may be shown it.
 */
export function storeByMessageId(db: Queryable): (message: ReceivedMessage) => Promise<void> {
  return async (message) => {
    const messageId = messageIdOf(message.raw);
    const email = messageId ? await findSendingEmail(db, messageId) : undefined;
    if (!email) return;
    await captureMessage(db, {
      emailId: email.id,
      account: email.account,
      envelopeFrom: message.envelopeFrom,
      recipients: message.recipients,
      subject: email.subject,
      raw: message.raw,
    });
  };
}

/**
 * The local run's mail sink: a real SMTP server on loopback that accepts every message and hands it to
 * `store` (the dev inbox the console shows) before answering 250. Nothing is relayed anywhere.
 */
export async function startSmtpCapture(options: {
  host: string;
  port: number;
  store: (message: ReceivedMessage) => Promise<void>;
}): Promise<SmtpCapture> {
  const server = new SMTPServer({
    name: "mailroom-capture",
    banner: "Mailroom local capture: nothing leaves this machine",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: 40 * 1024 * 1024,
    logger: false,
    onData(stream, session, callback) {
      const envelope = session.envelope;
      // Stored before the 250, while the email is `sending`, so its Message-ID still finds it.
      buffer(stream)
        .then((raw) =>
          options.store({
            envelopeFrom: envelope.mailFrom === false ? "" : envelope.mailFrom.address,
            recipients: envelope.rcptTo.map((r) => r.address),
            raw,
          }),
        )
        .then(
          () => callback(null, "captured"),
          (error: Error) => callback(error),
        );
    },
  });
  // smtp-server re-emits a client's socket errors (a reset connection, a client killed mid-message) on the
  // server: without a listener one such client would end `mailroom run` and orphan its Postgres.
  const listening = await listenSmtpServer(server, options.port, options.host);
  server.on("error", () => {});
  return listening;
}
