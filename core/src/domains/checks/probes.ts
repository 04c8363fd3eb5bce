import { Resolver } from "node:dns/promises";
import net from "node:net";
import tls from "node:tls";
import type { Config } from "../../config/index.ts";
import type { CheckVerdict } from "./evaluate.ts";

/** Where mail leaves from, as the worker's config says (core/src/config: delivery, smtp, dns). */
export interface SendingPath {
  mode: "relay" | "direct";
  /** The relay, `smtp://host:port` or `smtps://…` (relay mode). */
  relayUrl: string;
  /** The name Mailroom greets receivers with (EHLO) in direct mode: its A record's PTR must name it back. */
  hostname: string;
  dnsServers: readonly string[];
  timeoutMs: number;
}

/** The sending path a program's config describes; probes give up after `timeoutMs` per step. */
export function sendingPathFrom(config: Config, timeoutMs = 5_000): SendingPath {
  return {
    mode: config.delivery.mode,
    relayUrl: config.smtp.url,
    hostname: config.smtp.hostname,
    dnsServers: config.dns.servers,
    timeoutMs,
  };
}

/**
 * TLS: in relay mode, whether the relay speaks TLS (smtps://) or offers STARTTLS after EHLO. In direct mode
 * each receiver decides; Mailroom uses STARTTLS whenever one offers it, so there is nothing to check here.
 */
export async function probeTls(path: SendingPath): Promise<CheckVerdict> {
  if (path.mode === "direct") {
    return { status: "unknown", reason: "direct mode: STARTTLS is used with every receiver that offers it" };
  }
  const url = new URL(path.relayUrl);
  const implicit = url.protocol === "smtps:";
  const port = Number(url.port || (implicit ? 465 : 25));
  const where = `${url.hostname}:${port}`;
  try {
    if (implicit) {
      await withTimeout(path.timeoutMs, (done) => {
        const socket = tls.connect({ host: url.hostname, port, servername: url.hostname }, () => {
          socket.end();
          done(null);
        });
        socket.on("error", done);
        return () => socket.destroy();
      });
      return { status: "pass", reason: `the relay ${where} speaks TLS (smtps)` };
    }
    const ehlo = await withTimeout<string>(path.timeoutMs, (done) => {
      let text = "";
      let greeted = false;
      const socket = net.connect({ host: url.hostname, port });
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        text += chunk;
        // A reply ends with a line whose code is followed by a space (RFC 5321 §4.2).
        if (!/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(text)) return;
        if (!greeted) {
          greeted = true;
          text = "";
          socket.write(`EHLO ${path.hostname}\r\n`);
        } else {
          socket.end("QUIT\r\n");
          done(null, text);
        }
      });
      socket.on("error", (error) => done(error));
      return () => socket.destroy();
    });
    return /^250[- ]STARTTLS\b/im.test(ehlo)
      ? { status: "pass", reason: `the relay ${where} offers STARTTLS` }
      : { status: "fail", reason: `the relay ${where} does not offer STARTTLS: mail to it travels in clear` };
  } catch (error) {
    return { status: "unknown", reason: `could not reach the relay ${where}: ${(error as Error).message}` };
  }
}

/**
 * ReverseDNS: in direct mode, receivers check that the sending address has a PTR naming a host whose address
 * is the sender again (forward-confirmed), and Mailroom greets them as `hostname`: so its addresses' PTRs must
 * name it. In relay mode the relay's addresses send, and that is its operator's to check.
 */
export async function probeReverseDns(path: SendingPath): Promise<CheckVerdict> {
  if (path.mode === "relay") return { status: "unknown", reason: "relay mode: the relay's addresses send" };
  const resolver = new Resolver({ timeout: path.timeoutMs, tries: 1 });
  if (path.dnsServers.length > 0) resolver.setServers([...path.dnsServers]);
  const host = path.hostname.toLowerCase().replace(/\.$/, "");
  let addresses: string[];
  try {
    addresses = await resolver.resolve4(host);
  } catch (error) {
    return {
      status: "fail",
      reason: `${host} (the EHLO name) has no address: ${(error as NodeJS.ErrnoException).code}`,
    };
  }
  for (const address of addresses) {
    const names = await resolver.reverse(address).catch(() => [] as string[]);
    if (!names.some((n) => n.toLowerCase().replace(/\.$/, "") === host)) {
      return {
        status: "fail",
        reason: `the PTR of ${address} is ${names.length > 0 ? names.join(", ") : "missing"}, not ${host}`,
      };
    }
  }
  return { status: "pass", reason: `${addresses.join(", ")} point back to ${host} (forward-confirmed)` };
}

function withTimeout<T = void>(
  ms: number,
  start: (done: (error: Error | null, value?: T) => void) => () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let stop = () => {};
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
    stop = start((error, value) => {
      clearTimeout(timer);
      stop();
      if (error) reject(error);
      else resolve(value as T);
    });
  });
}
