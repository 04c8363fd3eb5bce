import { randomInt } from "node:crypto";
import { createSocket } from "node:dgram";
import { isIPv6 } from "node:net";

/** One TLSA record (RFC 6698 §2.1). */
export interface TlsaRecord {
  usage: number;
  selector: number;
  matchingType: number;
  data: Buffer;
}

/** The resolver's answer: its rcode, whether it vouched for it (the AD bit), and the TLSA records. */
export interface TlsaAnswer {
  rcode: number;
  authenticated: boolean;
  records: TlsaRecord[];
}

const TYPE_TLSA = 52;

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, "").split(".");
  return Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, "ascii")])),
    Buffer.from([0]),
  ]);
}

/** A query with RD and AD set (RFC 6840 §5.7: asks for the AD bit) and EDNS0 with DO (RFC 3225). */
function query(id: number, name: string): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0120, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(1, 10);
  const question = Buffer.concat([encodeName(name), Buffer.from([0, TYPE_TLSA, 0, 1])]);
  // OPT: root name, type 41, UDP size 4096, extended rcode/version 0, DO bit, no options.
  const opt = Buffer.from([0, 0, 41, 0x10, 0x00, 0, 0, 0x80, 0, 0, 0]);
  return Buffer.concat([header, question, opt]);
}

/** The offset after the (possibly compressed) name at `offset`. */
function skipName(packet: Buffer, offset: number): number {
  let at = offset;
  for (;;) {
    const length = packet.readUInt8(at);
    if (length === 0) return at + 1;
    if ((length & 0xc0) === 0xc0) return at + 2;
    at += length + 1;
  }
}

function parse(packet: Buffer): TlsaAnswer {
  const flags = packet.readUInt16BE(2);
  const questions = packet.readUInt16BE(4);
  const answers = packet.readUInt16BE(6);
  let at = 12;
  for (let i = 0; i < questions; i += 1) at = skipName(packet, at) + 4;
  const records: TlsaRecord[] = [];
  for (let i = 0; i < answers; i += 1) {
    at = skipName(packet, at);
    const type = packet.readUInt16BE(at);
    const length = packet.readUInt16BE(at + 8);
    const data = packet.subarray(at + 10, at + 10 + length);
    if (type === TYPE_TLSA && length >= 3) {
      records.push({
        usage: data[0] ?? 0,
        selector: data[1] ?? 0,
        matchingType: data[2] ?? 0,
        data: data.subarray(3),
      });
    }
    at += 10 + length;
  }
  return { rcode: flags & 0x0f, authenticated: (flags & 0x0020) !== 0, records };
}

/**
 * Asks `server` (`host:port`) for the TLSA records of `name` over UDP. Node's resolver neither asks for
 * DNSSEC nor shows the AD bit, which DANE rests on (RFC 7672 §2.2), hence this small query of our own.
 */
export function queryTlsa(server: string, name: string, timeoutMs: number): Promise<TlsaAnswer> {
  const match = server.match(/^\[?([^\]]+?)\]?(?::(\d+))?$/);
  const host = match?.[1] ?? server;
  const port = Number(match?.[2] ?? 53);
  const id = randomInt(0, 0xffff);
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(host) ? "udp6" : "udp4");
    const timer = setTimeout(() => finish(new Error(`TLSA query for ${name} timed out`)), timeoutMs);
    function finish(error: Error | undefined, answer?: TlsaAnswer) {
      clearTimeout(timer);
      socket.close();
      if (error || !answer) reject(error);
      else resolve(answer);
    }
    socket.on("error", (error) => finish(error));
    socket.on("message", (packet) => {
      if (packet.length < 12 || packet.readUInt16BE(0) !== id) return;
      try {
        finish(undefined, parse(packet));
      } catch (error) {
        finish(new Error(`malformed TLSA answer for ${name}: ${(error as Error).message}`));
      }
    });
    socket.send(query(id, name), port, host);
  });
}
