import { Resolver } from "node:dns/promises";
import { type CacheableAnswer, createDnsCache } from "./dns-cache.ts";

/** One MX host of a domain, in the order it should be tried. */
export interface MxHost {
  name: string;
  preference: number;
}

/** Where a domain's mail goes, or why it cannot go anywhere (for now or ever). */
export type MailRoute =
  | { kind: "hosts"; hosts: MxHost[] }
  | { kind: "failed"; status: "temporary" | "permanent"; code?: number; response: string };

/** The address lookups direct delivery needs, through one configured resolver. */
export interface MxResolver {
  /** The MX hosts of `domain` by preference, the domain itself when it has no MX (RFC 5321 §5.1). */
  resolveRoute(domain: string): Promise<MailRoute>;
  /** IPv4 then IPv6 addresses of a host; empty when it has none; throws on a lookup failure. */
  resolveAddresses(host: string): Promise<string[]>;
}

// "The name exists with no such record" and "no such name": answers, not failures of the lookup.
const NO_DATA = new Set(["ENODATA", "ENOTFOUND"]);

/** resolveMx reports no TTL, so an MX answer is kept this long (or the configured maximum, if shorter). */
const MX_ANSWER_SECONDS = 300;
/** NXDOMAIN, no records and null MX: kept this long at most, so a fixed domain is soon mailed again. */
const NEGATIVE_ANSWER_SECONDS = 60;
/** Answers held at once; a worker mailing millions of domains keeps the most recent ones. */
const MAX_CACHE_ENTRIES = 10_000;

type MxRecord = { exchange: string; priority: number };
/** What the MX query said: the records (none when the name exists without any), or that there is no name. */
type MxAnswer = { exists: true; records: MxRecord[] } | { exists: false };

function errorCode(error: unknown): string {
  return (error as { code?: string }).code ?? "EUNKNOWN";
}

/** DNS names are case-insensitive and `a.test.` is `a.test`: one cache entry for all their spellings. */
function canonical(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

function byPreference(records: MxRecord[]): MxHost[] {
  // Equal preferences are shuffled so that load spreads over them, as RFC 5321 §5.1 asks.
  return records
    .map((r) => ({ name: r.exchange.replace(/\.$/, ""), preference: r.priority, tie: Math.random() }))
    .sort((a, b) => a.preference - b.preference || a.tie - b.tie)
    .map(({ name, preference }) => ({ name, preference }));
}

const usable = (r: MxRecord) => r.exchange !== "" && r.exchange !== ".";

/** Options of {@link createMxResolver}. */
export interface MxResolverOptions {
  /** Resolvers as `host:port`; the system's when empty. */
  servers: readonly string[];
  timeoutMs?: number;
  /**
   * Longest time an answer is reused (`MAILROOM_DNS_CACHE_SECONDS`): A/AAAA for their TTL up to this, MX
   * (no TTL known) for 300 s up to this. 0 keeps nothing, though concurrent lookups still share one query.
   */
  cacheSeconds: number;
  /** Longest time a permanent negative answer is reused (still at most `cacheSeconds`); 60 by default. */
  negativeCacheSeconds?: number;
}

/**
 * A resolver on the given servers (`host:port` entries, the system's when empty). The mail path never
 * uses `dns.lookup`/getaddrinfo, so that tests and operators control every answer. Answers are cached per
 * record type and name (see {@link MxResolverOptions.cacheSeconds}); temporary failures (SERVFAIL, timeout,
 * refusal) are never kept, and concurrent lookups of one name share one query.
 */
export function createMxResolver(options: MxResolverOptions): MxResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 5_000, tries: 2 });
  if (options.servers.length > 0) resolver.setServers([...options.servers]);
  const cache = createDnsCache({ maxEntries: MAX_CACHE_ENTRIES });
  const maxSeconds = options.cacheSeconds;
  const negativeSeconds = Math.min(options.negativeCacheSeconds ?? NEGATIVE_ANSWER_SECONDS, maxSeconds);

  async function queryAddresses(family: 4 | 6, host: string): Promise<CacheableAnswer<string[]>> {
    try {
      const records =
        family === 4
          ? await resolver.resolve4(host, { ttl: true })
          : await resolver.resolve6(host, { ttl: true });
      if (records.length === 0) return { value: [], ttlSeconds: negativeSeconds };
      const ttl = Math.min(...records.map((r) => r.ttl));
      return { value: records.map((r) => r.address), ttlSeconds: Math.min(ttl, maxSeconds) };
    } catch (error) {
      if (NO_DATA.has(errorCode(error))) return { value: [], ttlSeconds: negativeSeconds };
      throw error;
    }
  }

  async function queryMx(domain: string): Promise<CacheableAnswer<MxAnswer>> {
    try {
      const records = await resolver.resolveMx(domain);
      // No records and a null MX are as permanent an answer as NXDOMAIN, and as short-lived in the cache.
      const ttlSeconds = records.some(usable) ? Math.min(MX_ANSWER_SECONDS, maxSeconds) : negativeSeconds;
      return { value: { exists: true, records }, ttlSeconds };
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOTFOUND") return { value: { exists: false }, ttlSeconds: negativeSeconds };
      if (code === "ENODATA") return { value: { exists: true, records: [] }, ttlSeconds: negativeSeconds };
      throw error;
    }
  }

  async function resolveAddresses(host: string): Promise<string[]> {
    const name = canonical(host);
    // Both settled before answering: a failure must not leave the other query running for the next caller
    // to join, which would hand it the stale outcome of a lookup it did not start.
    const [v4, v6] = await Promise.allSettled([
      cache.get(`A ${name}`, () => queryAddresses(4, name)),
      cache.get(`AAAA ${name}`, () => queryAddresses(6, name)),
    ]);
    if (v4.status === "rejected") throw v4.reason;
    if (v6.status === "rejected") throw v6.reason;
    return [...v4.value, ...v6.value];
  }

  async function resolveRoute(domain: string): Promise<MailRoute> {
    let answer: MxAnswer;
    try {
      const name = canonical(domain);
      answer = await cache.get(`MX ${name}`, () => queryMx(name));
    } catch (error) {
      const code = errorCode(error);
      return { kind: "failed", status: "temporary", response: `MX lookup for ${domain} failed: ${code}` };
    }
    if (!answer.exists) {
      return {
        kind: "failed",
        status: "permanent",
        response: `domain ${domain} does not exist (NXDOMAIN)`,
      };
    }
    const { records } = answer;
    // Sorted and shuffled on every call, cached or not, so equal-preference hosts share the load.
    const hosts = byPreference(records.filter(usable));
    if (records.length > 0 && hosts.length === 0) {
      // RFC 7505: a null MX ("0 .") declares that the domain accepts no mail at all.
      return {
        kind: "failed",
        status: "permanent",
        code: 556,
        response: `${domain} accepts no mail (null MX)`,
      };
    }
    if (hosts.length > 0) return { kind: "hosts", hosts };
    // No MX: the domain's own A/AAAA is the implicit MX, and without one there is nowhere to deliver.
    try {
      if ((await resolveAddresses(domain)).length === 0) {
        return { kind: "failed", status: "permanent", response: `${domain} has no MX and no address record` };
      }
    } catch (error) {
      const code = errorCode(error);
      return {
        kind: "failed",
        status: "temporary",
        response: `address lookup for ${domain} failed: ${code}`,
      };
    }
    return { kind: "hosts", hosts: [{ name: domain, preference: 0 }] };
  }

  return { resolveRoute, resolveAddresses };
}
