import { Resolver } from "node:dns/promises";
import { request } from "node:https";
import type { TlsOutcome } from "@mailroom/core/tls-reports";
import { createDnsCache } from "../dns-cache.ts";
import { parseStsPolicy, type StsPolicy, stsRecordId } from "./sts-policy.ts";

/** What a domain's MTA-STS says for this delivery. */
export type StsLookup =
  | { kind: "none" }
  | { kind: "policy"; policy: StsPolicy }
  /** A TXT record announced a policy that could not be had, and none is cached: reported, not enforced. */
  | { kind: "unavailable"; result: TlsResultType; detail: string };

/** How the MTA-STS side reaches DNS and the policy host. */
export interface MtaStsOptions {
  dnsServers: readonly string[];
  dnsTimeoutMs: number;
  /** Longest time a `_mta-sts` TXT answer is reused, in seconds. */
  dnsCacheSeconds: number;
  /** Addresses of a host through the mail path's resolver (never getaddrinfo). */
  resolveAddresses(host: string): Promise<string[]>;
  /** Why an address must not be connected to (the direct transport's SSRF guard), if it must not. */
  refusalOf(address: string): string | undefined;
  /** CA certificates trusted besides the system's, in PEM. */
  ca: readonly string[];
  /** 443 in production; a test's HTTPS server's port in tests. */
  port: number;
  timeoutMs: number;
}

const TXT_ANSWER_SECONDS = 300;
/** RFC 8461 §3.3: a policy body is small; more than this is refused rather than buffered. */
const MAX_POLICY_BYTES = 64 * 1024;
const NO_DATA = new Set(["ENODATA", "ENOTFOUND"]);
const WEBPKI_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME|HOSTNAME/;

type TlsResultType = TlsOutcome["result"];

class PolicyFetchError extends Error {
  readonly result: TlsResultType;
  constructor(message: string, result: TlsResultType) {
    super(message);
    this.result = result;
  }
}

interface CachedPolicy {
  id: string;
  policy: StsPolicy;
  expiresAt: number;
}

/**
 * MTA-STS discovery and policy fetch (RFC 8461 §3, §5). Policies are kept in this process for their
 * max_age (ADR 0056): the TXT id is looked up for every delivery (its answer cached like other DNS answers)
 * and a new id fetches the policy again; while the TXT record or the policy host is unreachable, a cached
 * unexpired policy still applies, so that blocking them cannot strip the policy.
 */
export function createMtaSts(options: MtaStsOptions) {
  const resolver = new Resolver({ timeout: options.dnsTimeoutMs, tries: 2 });
  if (options.dnsServers.length > 0) resolver.setServers([...options.dnsServers]);
  const txtCache = createDnsCache({ maxEntries: 10_000 });
  const policies = new Map<string, CachedPolicy>();
  const fetching = new Map<string, Promise<StsLookup>>();

  /** The TXT record's id; undefined when there is none; throws when DNS could not answer. */
  async function recordId(domain: string): Promise<string | undefined> {
    const name = `_mta-sts.${domain}`;
    const records = await txtCache.get(name, async () => {
      try {
        const value = await resolver.resolveTxt(name);
        return { value, ttlSeconds: Math.min(TXT_ANSWER_SECONDS, options.dnsCacheSeconds) };
      } catch (error) {
        if (!NO_DATA.has((error as { code?: string }).code ?? "")) throw error;
        return { value: [] as string[][], ttlSeconds: Math.min(60, options.dnsCacheSeconds) };
      }
    });
    return stsRecordId(records);
  }

  async function fetchBody(domain: string): Promise<string> {
    const host = `mta-sts.${domain}`;
    const addresses = await options.resolveAddresses(host);
    const address = addresses.find((a) => options.refusalOf(a) === undefined);
    if (!address) throw new PolicyFetchError(`${host} has no usable address`, "sts-policy-fetch-error");
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: address,
          servername: host,
          port: options.port,
          path: "/.well-known/mta-sts.txt",
          headers: { host },
          agent: false,
          ...(options.ca.length > 0 ? { ca: [...options.ca] } : {}),
          timeout: options.timeoutMs,
        },
        (res) => {
          // RFC 8461 §3.3: redirects are not followed, and only a 200 is a policy.
          if (res.statusCode !== 200) {
            res.resume();
            reject(new PolicyFetchError(`${host} answered HTTP ${res.statusCode}`, "sts-policy-fetch-error"));
            return;
          }
          const type = String(res.headers["content-type"] ?? "");
          if (!/^text\/plain\b/i.test(type)) {
            res.resume();
            reject(new PolicyFetchError(`policy served as ${type || "no type"}`, "sts-policy-invalid"));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_POLICY_BYTES) req.destroy(new Error("policy larger than 64 KiB"));
            else chunks.push(chunk);
          });
          res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error(`fetching the policy from ${host} timed out`)));
      req.on("error", (error: Error & { code?: string }) => {
        const webpki = WEBPKI_ERRORS.test(error.code ?? "");
        const result = webpki ? "sts-webpki-invalid" : "sts-policy-fetch-error";
        reject(new PolicyFetchError(`fetching the policy from ${host}: ${error.message}`, result));
      });
      req.end();
    });
  }

  async function refresh(domain: string, id: string, cached: CachedPolicy | undefined): Promise<StsLookup> {
    try {
      const body = await fetchBody(domain);
      let policy: StsPolicy;
      try {
        policy = parseStsPolicy(body);
      } catch (error) {
        throw new PolicyFetchError((error as Error).message, "sts-policy-invalid");
      }
      policies.set(domain, { id, policy, expiresAt: performance.now() + policy.maxAgeSeconds * 1000 });
      return { kind: "policy", policy };
    } catch (error) {
      // RFC 8461 §5.1: a policy that cannot be refreshed is used until it expires.
      if (cached) return { kind: "policy", policy: cached.policy };
      const result = error instanceof PolicyFetchError ? error.result : "sts-policy-fetch-error";
      return { kind: "unavailable", result, detail: (error as Error).message };
    }
  }

  /** The policy that applies to mail for `domain` now. */
  async function lookup(domain: string): Promise<StsLookup> {
    let cached = policies.get(domain);
    if (cached && cached.expiresAt <= performance.now()) {
      policies.delete(domain);
      cached = undefined;
    }
    let id: string | undefined;
    try {
      id = await recordId(domain);
    } catch {
      return cached ? { kind: "policy", policy: cached.policy } : { kind: "none" };
    }
    // RFC 8461 §5.1: a withdrawn TXT record does not end a cached policy before its max_age.
    if (id === undefined) return cached ? { kind: "policy", policy: cached.policy } : { kind: "none" };
    if (cached && cached.id === id) return { kind: "policy", policy: cached.policy };
    const key = `${domain} ${id}`;
    let pending = fetching.get(key);
    if (!pending) {
      pending = refresh(domain, id, cached).finally(() => fetching.delete(key));
      fetching.set(key, pending);
    }
    return pending;
  }

  return { lookup };
}
