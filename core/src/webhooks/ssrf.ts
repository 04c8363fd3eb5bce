import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { createAddressPolicy } from "../net/index.ts";

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
 * The SSRF guard for webhook targets and MX hosts, on the address policy of `core/net` (metadata and
 * link-local addresses always refused, also when embedded in an IPv6 address; loopback and private ranges
 * only reachable when an allowed CIDR covers them). A name is refused if any of its addresses
 * is, since an attacker controlling DNS could otherwise mix a public and an internal answer.
 */
export function createSsrfGuard(policy: SsrfPolicy = {}): SsrfGuard {
  const { refusalOf } = createAddressPolicy(policy.allowedCidrs);
  const resolve = policy.resolve ?? systemResolver;

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
