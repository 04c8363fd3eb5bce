import type { Socket } from "node:net";
import dns2, { type DnsHandler } from "dns2";

const { Packet, TCPServer, UDPServer } = dns2;

/** A record of the zone; `ttl` (seconds) is 60 unless given. */
export type ZoneRecord = (
  | { type: "TXT"; strings: string[] }
  | { type: "MX"; exchange: string; priority: number }
  | { type: "A"; address: string }
  | { type: "AAAA"; address: string }
  | { type: "PTR"; domain: string }
) & { ttl?: number };

/** How the server misbehaves for a name: answer SERVFAIL or REFUSED, or never answer at all. */
export type Fault = "servfail" | "refused" | "timeout";

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, the form `MAILROOM_DNS_SERVERS` and `Resolver#setServers` take. */
  address: string;
  port: number;
  /** Replaces every record at `name`; an empty list leaves the name existing with no data (NODATA). */
  setRecords(name: string, records: ZoneRecord[]): void;
  /** Shorthand for one TXT record per entry, each given as its character-strings. */
  setTxt(name: string, ...records: string[][]): void;
  /** Removes the name: queries then get NXDOMAIN. */
  removeName(name: string): void;
  /** Makes queries for `name` fail the given way; `undefined` restores normal answers. */
  setFault(name: string, fault: Fault | undefined): void;
  /** Number of queries received for `name` (any case), of every type or of the one given. */
  queryCount(name: string, type?: ZoneRecord["type"]): number;
  close(): Promise<void>;
}

const TYPE_CODES = {
  TXT: Packet.TYPE.TXT,
  MX: Packet.TYPE.MX,
  A: Packet.TYPE.A,
  AAAA: Packet.TYPE.AAAA,
  PTR: Packet.TYPE.PTR,
} as const;
// RFC 1035 §4.1.1 (dns2 has Packet.RCODE at run time, but its type declarations lack it).
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

function key(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

function toResource(question: dns2.Packet.Question, record: ZoneRecord): dns2.Packet.Resource {
  const base = {
    name: question.name,
    type: TYPE_CODES[record.type],
    class: Packet.CLASS.IN,
    ttl: record.ttl ?? 60,
  };
  const data =
    record.type === "TXT"
      ? { data: record.strings }
      : record.type === "MX"
        ? { exchange: record.exchange, priority: record.priority }
        : record.type === "PTR"
          ? { domain: record.domain }
          : { address: record.address };
  return Packet.createResourceFromQuestion(question, { ...base, ...data });
}

/**
 * A real authoritative-style DNS server on loopback (UDP and TCP on one port, since a 2048-bit DKIM record
 * can outgrow a 512-byte UDP answer and the resolver then retries over TCP). Its zone and faults change at
 * run time, so a test can publish, alter or withdraw a record between checks.
 */
/**
 * UDP and TCP listening on one port. The TCP side binds first on a free port (the crowded space: every
 * outgoing connection of this machine takes an ephemeral TCP port) and UDP then takes the same number; when
 * some other process holds that UDP port, both are closed and another port is tried.
 */
async function listenOnOnePort(handle: DnsHandler, onConnection: (socket: Socket) => void) {
  for (let attempt = 1; ; attempt += 1) {
    const tcp = new TCPServer(handle);
    tcp.on("connection", onConnection);
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen(0, "127.0.0.1", () => resolve());
    });
    const port = (tcp.address() as { port: number }).port;
    const udp = new UDPServer(handle);
    try {
      // dns2's own listen() never settles on a bind error (it surfaces as an 'error' event): bind directly.
      await new Promise<void>((resolve, reject) => {
        udp.once("error", reject);
        udp.bind(port, "127.0.0.1", () => {
          udp.off("error", reject);
          resolve();
        });
      });
      return { udp, tcp, port };
    } catch (error) {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      if (attempt >= 5) throw error;
    }
  }
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, ZoneRecord[]>();
  const faults = new Map<string, Fault>();
  const counts = new Map<string, number>();

  const handle: DnsHandler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const question = request.questions[0];
    const name = key(question?.name ?? "");
    // Per name, and per name and type (`queryCount` with a type).
    for (const counted of [name, `${name} ${question?.type}`]) {
      counts.set(counted, (counts.get(counted) ?? 0) + 1);
    }
    const fault = faults.get(name);
    if (fault === "timeout") return;
    response.header.aa = 1;
    if (fault) {
      response.header.rcode = fault === "servfail" ? RCODE.SERVFAIL : RCODE.REFUSED;
    } else if (!zone.has(name)) {
      response.header.rcode = RCODE.NXDOMAIN;
    } else {
      for (const record of zone.get(name) ?? []) {
        if (TYPE_CODES[record.type] === question?.type) response.answers.push(toResource(question, record));
      }
    }
    send(response).catch(() => {});
  };

  const sockets = new Set<Socket>();
  const { udp, tcp, port } = await listenOnOnePort(handle, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  const server: TestDnsServer = {
    address: `127.0.0.1:${port}`,
    port,
    setRecords(name, records) {
      for (const record of records) {
        if (record.type === "TXT" && record.strings.some((s) => Buffer.byteLength(s) > 255)) {
          // dns2 would write a wrapped length octet and a corrupt answer; a real server refuses too.
          throw new Error(`TXT character-string over 255 bytes at ${name}`);
        }
      }
      zone.set(key(name), records);
    },
    setTxt(name, ...records) {
      server.setRecords(
        name,
        records.map((strings) => ({ type: "TXT", strings })),
      );
    },
    removeName(name) {
      zone.delete(key(name));
    },
    setFault(name, fault) {
      if (fault) faults.set(key(name), fault);
      else faults.delete(key(name));
    },
    queryCount(name, type) {
      return counts.get(type ? `${key(name)} ${TYPE_CODES[type]}` : key(name)) ?? 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
  return server;
}
