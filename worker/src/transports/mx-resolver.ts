import { Resolver } from "node:dns/promises";

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

function errorCode(error: unknown): string {
  return (error as { code?: string }).code ?? "EUNKNOWN";
}

function byPreference(records: Array<{ exchange: string; priority: number }>): MxHost[] {
  // Equal preferences are shuffled so that load spreads over them, as RFC 5321 §5.1 asks.
  return records
    .map((r) => ({ name: r.exchange.replace(/\.$/, ""), preference: r.priority, tie: Math.random() }))
    .sort((a, b) => a.preference - b.preference || a.tie - b.tie)
    .map(({ name, preference }) => ({ name, preference }));
}

/**
 * A resolver on the given servers (`host:port` entries, the system's when empty). The mail path never
 * uses `dns.lookup`/getaddrinfo, so that tests and operators control every answer.
 */
export function createMxResolver(options: { servers: readonly string[]; timeoutMs?: number }): MxResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 5_000, tries: 2 });
  if (options.servers.length > 0) resolver.setServers([...options.servers]);

  async function lookup(query: () => Promise<string[]>): Promise<string[]> {
    try {
      return await query();
    } catch (error) {
      if (NO_DATA.has(errorCode(error))) return [];
      throw error;
    }
  }

  async function resolveAddresses(host: string): Promise<string[]> {
    const [v4, v6] = await Promise.all([
      lookup(() => resolver.resolve4(host)),
      lookup(() => resolver.resolve6(host)),
    ]);
    return [...v4, ...v6];
  }

  async function resolveRoute(domain: string): Promise<MailRoute> {
    let records: Array<{ exchange: string; priority: number }>;
    try {
      records = await resolver.resolveMx(domain);
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOTFOUND") {
        return {
          kind: "failed",
          status: "permanent",
          response: `domain ${domain} does not exist (NXDOMAIN)`,
        };
      }
      if (code !== "ENODATA") {
        return { kind: "failed", status: "temporary", response: `MX lookup for ${domain} failed: ${code}` };
      }
      records = [];
    }
    const hosts = byPreference(records.filter((r) => r.exchange !== "" && r.exchange !== "."));
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
