import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

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

function rangeOf(cidr: string): Range {
  const [address, prefix] = parseCidr(cidr);
  return [ipaddr.parse(address), prefix];
}

const inAny = (address: Address, ranges: readonly Range[]) =>
  ranges.some(([net, prefix]) => net.kind() === address.kind() && address.match(net, prefix));

/**
 * Every cloud's instance metadata (and platform) service addresses, by provider: never contacted, whatever the
 * allow-list says. IPv4 link-local (169.254.0.0/16) also covers AWS, GCP, Azure IMDS, OCI, DigitalOcean,
 * Hetzner, OpenStack, IBM and Tencent; the rest are listed because they sit outside it (issue 26).
 */
export const CLOUD_METADATA_ADDRESSES: Readonly<Record<string, readonly string[]>> = {
  aws: ["169.254.169.254", "169.254.170.2", "fd00:ec2::254"], // IMDS, ECS task metadata, IMDS over IPv6
  gcp: ["169.254.169.254", "fd20:ce::254"],
  azure: ["169.254.169.254", "168.63.129.16"], // IMDS; WireServer (a public address, reachable only in Azure)
  oci: ["169.254.169.254", "192.0.0.192", "fd00:c1::a9fe:a9fe"],
  alibaba: ["100.100.100.200"],
  tencent: ["169.254.0.23"],
  digitalocean: ["169.254.169.254"],
  openstack: ["169.254.169.254"],
};

// Never contacted, whatever the allow-list says: cloud metadata, link-local, multicast, "this network".
const ALWAYS_REFUSED = [
  ...new Set(Object.values(CLOUD_METADATA_ADDRESSES).flat()),
  "169.254.0.0/16", // link-local, includes most clouds' metadata services
  "0.0.0.0/8", // "this network": Linux connects 0.0.0.0 to localhost
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved and broadcast
  "fe80::/10", // link-local
  "ff00::/8", // multicast
  "::/128", // unspecified
  // Local-use IPv4/IPv6 translation (RFC 8215): where the IPv4 sits depends on the translator's prefix
  // length, so what it reaches cannot be told from the address.
  "64:ff9b:1::/48",
].map(rangeOf);

// Reached only when an allowed CIDR covers them.
const PRIVATE = [
  "127.0.0.0/8",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10", // carrier-grade NAT, also used by some cluster networks
  "198.18.0.0/15", // benchmarking
  "::1/128",
  "fc00::/7", // unique local
].map(rangeOf);

const word = (parts: number[], i: number) => parts[i] ?? 0;
const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address leads to: IPv4-mapped (::ffff:a.b.c.d), SIIT (::ffff:0:a.b.c.d),
 * IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: server, and
 * client obscured by inversion). A packet sent to any of them can end at that IPv4 host.
 */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  const last = ipv4Of(word(p, 6), word(p, 7));
  if (zeros(0, 5) && word(p, 5) === 0xffff) return [last];
  // IPv4-compatible, except :: and ::1, which are IPv6's own unspecified and loopback addresses.
  if (zeros(0, 6) && (word(p, 6) !== 0 || word(p, 7) > 1)) return [last];
  if (zeros(0, 4) && word(p, 4) === 0xffff && word(p, 5) === 0) return [last];
  if (word(p, 0) === 0x64 && word(p, 1) === 0xff9b && zeros(2, 6)) return [last];
  if (word(p, 0) === 0x2002) return [ipv4Of(word(p, 1), word(p, 2))];
  if (word(p, 0) === 0x2001 && word(p, 1) === 0) {
    return [ipv4Of(word(p, 2), word(p, 3)), ipv4Of(~word(p, 6) & 0xffff, ~word(p, 7) & 0xffff)];
  }
  return [];
}

/** How far an address may be contacted: never, only when allowed, or freely. */
type AddressClass = "refused" | "private" | "public";

function classOfOne(address: Address): AddressClass {
  if (inAny(address, ALWAYS_REFUSED)) return "refused";
  if (inAny(address, PRIVATE)) return "private";
  return "public";
}

export interface AddressPolicy {
  /** Undefined when the address may be contacted, else the reason it may not. */
  refusalOf(address: string): string | undefined;
}

/**
 * The one policy for outbound connections to addresses a tenant can influence (webhook targets, MX hosts):
 * metadata, link-local, multicast and reserved addresses are always refused; loopback and private ranges
 * only when an allowed CIDR covers them. An IPv6 address is judged together with every IPv4 address it
 * embeds, so a translation prefix (NAT64, 6to4, Teredo, mapped) cannot smuggle a refused IPv4 through.
 */
export function createAddressPolicy(allowedCidrs: readonly string[] = []): AddressPolicy {
  const allowed = allowedCidrs.map(rangeOf);
  return {
    refusalOf(raw) {
      const text = raw.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
      if (!ipaddr.isValid(text) || isIP(text) === 0) return `${raw} is not an IP address`;
      const address = ipaddr.parse(text);
      const judged: Address[] = [address];
      if (address.kind() === "ipv6") judged.push(...embeddedIpv4(address as ipaddr.IPv6));
      for (const one of judged) {
        if (classOfOne(one) === "refused") return `${raw} is a metadata, link-local or reserved address`;
      }
      for (const one of judged) {
        if (classOfOne(one) === "private" && !inAny(one, allowed)) {
          return `${raw} is a private or loopback address not in the allow-list`;
        }
      }
      return undefined;
    },
  };
}
