import type { AddressInfo } from "node:net";
import PostalMime, { type Email } from "postal-mime";
import { SMTPServer } from "smtp-server";
import { assertNoOverlongLines, checkLineLengths } from "./line-length.ts";

export interface ReceivedMessage {
  /** With the MAIL FROM parameters the sender gave: BODY (`7bit` unless declared) and SMTPUTF8. */
  envelope: { from: string; to: string[]; bodyType: string; smtpUtf8: boolean };
  raw: Buffer;
  parsed: Email;
  /** When the sink accepted it (ms since the epoch). */
  receivedAt: number;
}

/** How the sink answers one recipient: accept, or an SMTP code with text (4xx temporary, 5xx permanent). */
export type RecipientAnswer = { code: 250 } | { code: number; message: string };

export interface SmtpSink {
  port: number;
  url: string;
  messages: ReceivedMessage[];
  /** Decides per recipient; accept everyone by default. */
  answer: (recipient: string) => RecipientAnswer;
  /**
   * Holds a message's end of DATA (its 250 and its place in `messages`) until the promise it returns settles,
   * as a slow receiver would; none held by default.
   */
  hold: (envelope: { from: string; to: string[] }) => Promise<void> | undefined;
  /** Resolves once `count` messages have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback that keeps what it receives and can refuse recipients with 4xx/5xx. Every
 * message is checked for lines over 998 octets; `close()` throws if one had any.
 */
export async function startSmtpSink(
  /** Extensions the sink does not offer, as an older or stricter next hop would not. */
  options: { hide8BITMIME?: boolean; hideSMTPUTF8?: boolean } = {},
): Promise<SmtpSink> {
  const messages: ReceivedMessage[] = [];
  const waiters: Array<() => void> = [];
  const sink: SmtpSink = {
    port: 0,
    url: "",
    messages,
    answer: () => ({ code: 250 }),
    hold: () => undefined,
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        // Waiters are taken off at each message: one still short of `count` puts itself back.
        const check = (): void => {
          if (messages.length >= count) {
            clearTimeout(timer);
            resolve(messages);
          } else {
            waiters.push(check);
          }
        };
        const timer = setTimeout(
          () => reject(new Error(`SMTP sink: ${messages.length}/${count} messages after ${timeoutMs} ms`)),
          timeoutMs,
        );
        check();
      }),
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    ...options,
    logger: false,
    onRcptTo(address, _session, callback) {
      const answer = sink.answer(address.address);
      if (answer.code === 250) return callback();
      const error = new Error("message" in answer ? answer.message : "refused") as Error & {
        responseCode: number;
      };
      error.responseCode = answer.code;
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        const to = session.envelope.rcptTo.map((r) => r.address);
        (sink.hold({ from, to }) ?? Promise.resolve()).then(() => {
          const raw = Buffer.concat(chunks);
          // Kept, so that the test sees what was sent; closing the sink then fails the file.
          checkLineLengths(raw);
          PostalMime.parse(raw).then(
            (parsed) => {
              messages.push({
                envelope: {
                  from,
                  to,
                  bodyType: session.envelope.bodyType ?? "7bit",
                  smtpUtf8: session.envelope.smtpUtf8 === true,
                },
                raw,
                parsed,
                receivedAt: Date.now(),
              });
              for (const w of waiters.splice(0)) w();
              callback(null, "accepted by sink");
            },
            (error: Error) => callback(error),
          );
        }, callback);
      });
    },
  });
  // A client that vanishes mid-session (a worker killed with -9) resets its socket; smtp-server reports that
  // as a server error, which is no fault of the sink's.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  sink.port = (server.server.address() as AddressInfo).port;
  sink.url = `smtp://127.0.0.1:${sink.port}`;
  sink.close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    assertNoOverlongLines();
  };
  return sink;
}
