/**
 * The SMTP sink of bench/delivery/main.ts, forked as its own process so that receiving costs neither sender CPU:
 * a real smtp-server on 127.0.0.1 that answers 250 to everything and, per Message-ID, counts arrivals, notes
 * the time the whole message was received (end of DATA), when its SMTP transaction began (MAIL FROM) and
 * whether a DKIM-Signature header was present.
 * It reads only the header block (no MIME parsing) and keeps the first few raw messages after each reset so
 * that the orchestrator can verify their signatures independently.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { type Arrival, now, type SinkCommand, type SinkMessage } from "./protocol.ts";

const MAX_SAMPLES = 5;

function post(message: SinkMessage): void {
  if (!process.send) throw new Error("sink.ts must be forked with an IPC channel");
  process.send(message);
}

let arrivals = new Map<string, Arrival>();
let withoutId = 0;
let total = 0;
let samples: Buffer[] = [];
let cpuAtReset = process.cpuUsage();
/** When the open transaction of each connection began (MAIL FROM), by session id. */
const mailFromAt = new Map<string, number>();

function received(raw: Buffer, at: number, from: number): void {
  total += 1;
  if (samples.length < MAX_SAMPLES) samples.push(raw);
  const end = raw.indexOf("\r\n\r\n");
  const header = raw.toString("latin1", 0, end < 0 ? raw.length : end + 2);
  const id = /^message-id:[ \t]*(<[^>\r\n]*>)/im.exec(header)?.[1];
  const signed = /^dkim-signature:/im.test(header);
  if (!id) {
    withoutId += 1;
    return;
  }
  const seen = arrivals.get(id);
  if (seen) {
    seen[2] += 1;
    seen[3] &&= signed;
  } else {
    arrivals.set(id, [id, at, 1, signed, from]);
  }
}

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["AUTH", "STARTTLS"],
  disableReverseLookup: true,
  logger: false,
  banner: "bench sink",
  onMailFrom(_address, session, callback) {
    mailFromAt.set(session.id, now());
    callback();
  },
  onClose(session) {
    mailFromAt.delete(session.id);
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    const from = mailFromAt.get(session.id) ?? Number.NaN;
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      received(Buffer.concat(chunks), now(), from);
      callback(null, "2.0.0 accepted by bench sink");
    });
  },
});

process.on("disconnect", () => process.exit(1));
process.on("message", (command: SinkCommand) => {
  if (command.type === "reset") {
    arrivals = new Map();
    withoutId = 0;
    total = 0;
    samples = [];
    cpuAtReset = process.cpuUsage();
    post({ type: "reset" });
  } else if (command.type === "count") {
    post({ type: "count", count: total });
  } else if (command.type === "report") {
    const cpu = process.cpuUsage(cpuAtReset);
    post({
      type: "report",
      report: {
        arrivals: [...arrivals.values()],
        withoutId,
        samples: samples.slice(0, command.samples),
        cpuMs: (cpu.user + cpu.system) / 1000,
      },
    });
  } else if (command.type === "stop") {
    server.close(() => process.exit(0));
    // Pooled client connections stay open between messages: do not wait for the senders to hang up.
    setTimeout(() => process.exit(0), 2_000).unref();
  }
});

server.listen(0, "127.0.0.1", () => {
  post({ type: "ready", port: (server.server.address() as AddressInfo).port });
});
