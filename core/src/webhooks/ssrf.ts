import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Why a webhook target was refused; the message names the host, never a secret. */
export class WebhookTargetRefusedError extends Error {
  override name = "WebhookTargetRefusedError";
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (the default uses the system resolver, as connect would). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SsrfPolicy {
  /**
   * CIDRs (or bare addresses) that may be reached although private or loopback, e.g. `10.0.0.0/8` for an
   * in-cluster receiver or `127.0.0.0/8,::1/128` for a developer's machine. Never unlocks the always-refused
   * ranges (cloud metadata, link-local, multicast, unspecified).
   */
  allowedCidrs?: readonly string[];
  resolve?: HostResolver;
}

export interface DeliveryTarget {
  url: URL;
  /** The checked address to connect to: connecting to it, not to the name, leaves no DNS-rebinding window. */
  address: string;
  family: 4 | 6;
  /** The name to present in Host and TLS SNI/certificate checks (undefined for an IP literal). */
  servername: string | undefined;
}

// Names of metadata services that resolve only inside a cloud; refused before any lookup.
const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "metadata", "instance-data"]);

/** True for the names of cloud metadata services. */
export function isMetadataHost(hostname: string): boolean {
  return METADATA_HOSTS.has(hostname.toLowerCase().replace(/\.$/, ""));
}

function blockList(entries: readonly [string, number, "ipv4" | "ipv6"][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix, type] of entries) list.addSubnet(net, prefix, type);
  return list;
}

const ALWAYS_REFUSED = blockList([
  ["169.254.0.0", 16, "ipv4"], // link-local, includes 169.254.169.254 and 169.254.170.2 (ECS)
  ["100.100.100.200", 32, "ipv4"], // Alibaba Cloud metadata
  ["0.0.0.0", 8, "ipv4"], // "this network": Linux connects 0.0.0.0 to localhost
  ["224.0.0.0", 4, "ipv4"], // multicast
  ["240.0.0.0", 4, "ipv4"], // reserved and broadcast
  ["fe80::", 10, "ipv6"], // link-local
  ["fd00:ec2::254", 128, "ipv6"], // AWS metadata over IPv6
  ["ff00::", 8, "ipv6"], // multicast
  ["::", 128, "ipv6"], // unspecified
]);

const PRIVATE = blockList([
  ["127.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["100.64.0.0", 10, "ipv4"], // carrier-grade NAT, also used by some cluster networks
  ["198.18.0.0", 15, "ipv4"], // benchmarking
  ["::1", 128, "ipv6"],
  ["fc00::", 7, "ipv6"], // unique local
]);

/** Parses `a.b.c.d/n`, `x::y/n` or a bare address into BlockList form; throws on anything else. */
export function parseCidr(text: string): [string, number, "ipv4" | "ipv6"] {
  const [address = "", prefixText, ...rest] = text.trim().split("/");
  const version = isIP(address);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (version === 0 || rest.length > 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    throw new Error(`not a CIDR: ${JSON.stringify(text)}`);
  }
  return [address, prefix, version === 4 ? "ipv4" : "ipv6"];
}

/** Parses a comma-separated CIDR list (the form an environment variable carries). */
export function parseCidrList(text: string): string[] {
  const items = text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of items) parseCidr(item);
  return items;
}

// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) reaches the IPv4 host: judge it as that host.
function normalize(address: string): { address: string; type: "ipv4" | "ipv6" } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return { address: mapped[1], type: "ipv4" };
  return { address, type: isIP(address) === 4 ? "ipv4" : "ipv6" };
}

export interface SsrfGuard {
  /** Undefined when the address may be contacted, else the reason it may not. */
  refusalOf(address: string): string | undefined;
  /** Checks the URL, resolves its host and checks every address; throws WebhookTargetRefusedError. */
  resolveTarget(url: string): Promise<DeliveryTarget>;
}

const systemResolver: HostResolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/**
 * The SSRF guard for webhook targets. Metadata and link-local addresses are always refused; loopback and
 * private ranges only reachable when an allowed CIDR covers them. A name is refused if any of its addresses
 * is, since an attacker controlling DNS could otherwise mix a public and an internal answer.
 */
export function createSsrfGuard(policy: SsrfPolicy = {}): SsrfGuard {
  const allowed = new BlockList();
  for (const cidr of policy.allowedCidrs ?? []) allowed.addSubnet(...parseCidr(cidr));
  const resolve = policy.resolve ?? systemResolver;

  function refusalOf(raw: string): string | undefined {
    const { address, type } = normalize(raw);
    if (ALWAYS_REFUSED.check(address, type)) return `${raw} is a metadata, link-local or reserved address`;
    if (PRIVATE.check(address, type) && !allowed.check(address, type)) {
      return `${raw} is a private or loopback address not in the allow-list`;
    }
    return undefined;
  }

  return {
    refusalOf,
    async resolveTarget(text) {
      const url = checkWebhookUrl(text);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (isMetadataHost(host)) {
        throw new WebhookTargetRefusedError(`${host} is a cloud metadata host`);
      }
      const literal = isIP(host);
      const addresses: ResolvedAddress[] = literal
        ? [{ address: host, family: literal === 6 ? 6 : 4 }]
        : await resolve(host).catch((error: unknown) => {
            throw new WebhookTargetRefusedError(`cannot resolve ${host}: ${(error as Error).message}`);
          });
      const first = addresses[0];
      if (!first) throw new WebhookTargetRefusedError(`${host} has no address`);
      for (const entry of addresses) {
        const refusal = refusalOf(entry.address);
        if (refusal) throw new WebhookTargetRefusedError(`${host}: ${refusal}`);
      }
      return { url, address: first.address, family: first.family, servername: literal ? undefined : host };
    },
  };
}

/** Parses a webhook URL: http(s) only, no credentials, no fragment. Throws WebhookTargetRefusedError. */
export function checkWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetRefusedError("not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new WebhookTargetRefusedError("the URL must use https or http");
  }
  if (url.username || url.password) throw new WebhookTargetRefusedError("the URL must not carry credentials");
  if (url.hash) throw new WebhookTargetRefusedError("the URL must not have a fragment");
  return url;
}
