import { mkdir, rename, writeFile } from "node:fs/promises";
import { buffer } from "node:stream/consumers";
import type { Queryable } from "@mailroom/core/db";
import { inboxMessageFile, inboxOwnerFile, newInboxMessageId } from "@mailroom/core/dev-inbox";
import { findSendingEmailAccount } from "@mailroom/core/emails";
import { listenSmtpServer } from "@mailroom/smtp";
import { SMTPServer } from "smtp-server";

export interface SmtpCapture {
  port: number;
  close(): Promise<void>;
}

/** The Message-ID header of a raw message (its header block only), if it has one. */
export function messageIdOf(raw: Buffer): string | undefined {
  const end = raw.indexOf("\r\n\r\n");
  const headers = raw.subarray(0, end < 0 ? raw.length : end).toString("latin1");
  return /^message-id[ \t]*:[ \t]*(<[^>\r\n]*>)/im.exec(headers)?.[1];
}

/** The capture's owner lookup: the account of the email being sent under the message's Message-ID. */
export function ownerByMessageId(db: Queryable): (raw: Buffer) => Promise<string | undefined> {
  return async (raw) => {
    const messageId = messageIdOf(raw);
    return messageId ? findSendingEmailAccount(db, messageId) : undefined;
  };
}

/**
 * The local run's mail sink: a real SMTP server on loopback that accepts every message and writes it, as
 * received, to `<inboxDir>/<time>-<n>.eml` (the dev inbox the console shows), with `<…>.owner` naming the
 * account `ownerOf` finds for it (none: the message is shown to nobody). Nothing is relayed anywhere.
 */
export async function startSmtpCapture(options: {
  host: string;
  port: number;
  inboxDir: string;
  /** The account whose email this is (the worker is handing it over now), found by its Message-ID. */
  ownerOf: (raw: Buffer) => Promise<string | undefined>;
  onMessage?: (file: string) => void;
}): Promise<SmtpCapture> {
  await mkdir(options.inboxDir, { recursive: true });
  let counter = 0;
  const server = new SMTPServer({
    name: "mailroom-capture",
    banner: "Mailroom local capture: nothing leaves this machine",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: 40 * 1024 * 1024,
    logger: false,
    onData(stream, _session, callback) {
      counter += 1;
      const id = newInboxMessageId(new Date(), counter);
      const final = inboxMessageFile(options.inboxDir, id);
      const partial = `${final}.part`;
      // The owner first, then the message under a temporary name renamed into place: a reader never sees
      // half a message, nor a message without its owner. Before the 250, while the email is `sending`.
      buffer(stream)
        .then(async (raw) => {
          const owner = await options.ownerOf(raw);
          if (owner !== undefined) await writeFile(inboxOwnerFile(options.inboxDir, id), owner);
          await writeFile(partial, raw);
          await rename(partial, final);
        })
        .then(
          () => {
            options.onMessage?.(final);
            callback(null, `queued as ${id}`);
          },
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
