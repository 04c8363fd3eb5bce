import { createWriteStream } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { inboxMessageFile, newInboxMessageId } from "@mailroom/core/dev-inbox";
import { listenSmtpServer } from "@mailroom/smtp";
import { SMTPServer } from "smtp-server";

export interface SmtpCapture {
  port: number;
  close(): Promise<void>;
}

/**
 * The local run's mail sink: a real SMTP server on loopback that accepts every message and writes it, as
 * received, to `<inboxDir>/<time>-<n>.eml` (the dev inbox the console shows). Nothing is relayed anywhere.
 */
export async function startSmtpCapture(options: {
  host: string;
  port: number;
  inboxDir: string;
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
      // Written under a temporary name and renamed, so a reader never sees half a message.
      pipeline(stream, createWriteStream(partial))
        .then(() => rename(partial, final))
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
