import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerSession } from "smtp-server";
import { assertNoOverlongLines, checkLineLengths } from "./line-length.ts";

/** How the sink answers a command: accept, or an SMTP code with text (4xx temporary, 5xx permanent). */
export type SinkAnswer = { code: 250 } | { code: number; message: string };

export interface SinkMessage {
  envelope: { from: string; to: string[] };
  raw: Buffer;
  /** Whether the session had switched to TLS (STARTTLS or implicit) when the message came. */
  secure: boolean;
  /** The name the client gave with EHLO/HELO. */
  helo: string;
}

export interface SinkOptions {
  /** Loopback address to listen on: 127.0.0.1 by default; 127.0.0.2, .3 … stand for other MX hosts. */
  host?: string;
  /** 0 (any) by default; direct-delivery tests put every MX host on one port. */
  port?: number;
  /** Offer STARTTLS, with smtp-server's built-in self-signed certificate unless `key`/`cert` are given. */
  starttls?: boolean;
  /** TLS from the first byte (smtps). */
  secure?: boolean;
  key?: string | Buffer;
  cert?: string | Buffer;
  /** Require AUTH with these credentials before MAIL FROM. */
  auth?: { user: string; pass: string };
  /** Hold each reply to the message data this long, so that concurrent sessions overlap. */
  dataDelayMs?: number;
}

export interface CountingSmtpSink {
  host: string;
  port: number;
  messages: SinkMessage[];
  /** Answers, replaceable at run time; each accepts by default. */
  answerMailFrom: (from: string) => SinkAnswer;
  answerRecipient: (recipient: string) => SinkAnswer;
  answerData: (envelope: SinkMessage["envelope"]) => SinkAnswer;
  /** Connections accepted so far, open now, and the most open at once. */
  readonly connections: number;
  readonly openConnections: number;
  readonly maxConcurrentConnections: number;
  /** Stops listening; open client connections get a second to finish before they are cut. */
  close(): Promise<void>;
}

const accept = (): SinkAnswer => ({ code: 250 });

function refusal(answer: SinkAnswer): Error | null {
  if (answer.code === 250) return null;
  const error = new Error("message" in answer ? answer.message : "refused") as Error & {
    responseCode: number;
  };
  error.responseCode = answer.code;
  return error;
}

/**
 * A real SMTP server on a loopback address that counts its connections (total, open now, most at once),
 * can answer MAIL FROM, RCPT TO and DATA with any code, and can offer STARTTLS, implicit TLS or AUTH.
 * Every accepted message is checked for lines over 998 octets; `close()` throws if one had any.
 */
export async function startCountingSink(options: SinkOptions = {}): Promise<CountingSmtpSink> {
  const host = options.host ?? "127.0.0.1";
  let connections = 0;
  let open = 0;
  let maxOpen = 0;
  const sink: CountingSmtpSink = {
    host,
    port: 0,
    messages: [],
    answerMailFrom: accept,
    answerRecipient: accept,
    answerData: accept,
    get connections() {
      return connections;
    },
    get openConnections() {
      return open;
    },
    get maxConcurrentConnections() {
      return maxOpen;
    },
    close: async () => {},
  };
  const disabledCommands = [...(options.starttls || options.secure ? [] : ["STARTTLS"])];
  if (!options.auth) disabledCommands.push("AUTH");
  const server = new SMTPServer({
    secure: options.secure ?? false,
    ...(options.key && options.cert ? { key: options.key, cert: options.cert } : {}),
    authOptional: !options.auth,
    disabledCommands,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 1_000,
    onConnect(_session, callback) {
      connections += 1;
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      callback();
    },
    onClose() {
      open -= 1;
    },
    onAuth(auth, _session, callback) {
      const ok = options.auth && auth.username === options.auth.user && auth.password === options.auth.pass;
      callback(ok ? null : new Error("invalid credentials"), ok ? { user: auth.username } : undefined);
    },
    onMailFrom(address, _session, callback) {
      callback(refusal(sink.answerMailFrom(address.address)));
    },
    onRcptTo(address, _session, callback) {
      callback(refusal(sink.answerRecipient(address.address)));
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        const answer = sink.answerData(envelope);
        setTimeout(() => {
          const error = refusal(answer);
          if (!error) {
            checkLineLengths(Buffer.concat(chunks));
            const helo = session.hostNameAppearsAs || "";
            sink.messages.push({ envelope, raw: Buffer.concat(chunks), secure: session.secure, helo });
          }
          callback(error, "queued by counting sink");
        }, options.dataDelayMs ?? 0);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  sink.port = (server.server.address() as AddressInfo).port;
  sink.close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    assertNoOverlongLines();
  };
  return sink;
}
