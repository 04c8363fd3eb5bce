import { createHash, X509Certificate } from "node:crypto";
import { createDnsCache } from "../dns-cache.ts";
import { queryTlsa, type TlsaRecord } from "./tlsa-query.ts";

/** What DNSSEC says of an MX host's TLS (RFC 7672 §2.2). */
export type DaneLookup =
  | { kind: "none" }
  | { kind: "tlsa"; records: TlsaRecord[] }
  /** The lookup failed or the answer did not validate: the host must not be used (defer). */
  | { kind: "bogus"; detail: string };

const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;

/** DANE-TA(2) and DANE-EE(3) only: PKIX usages are not for SMTP (RFC 7672 §3.1.3). */
const usable = (r: TlsaRecord) => (r.usage === 2 || r.usage === 3) && r.selector <= 1 && r.matchingType <= 2;

/** TLSA records as RFC 8460 §4.4 reports them (`policy-string`). */
export const tlsaText = (records: readonly TlsaRecord[]) =>
  records.map((r) => `${r.usage} ${r.selector} ${r.matchingType} ${r.data.toString("hex")}`);

/**
 * TLSA lookups through a resolver that validates DNSSEC (`MAILROOM_DNS_VALIDATES_DNSSEC`): records count only
 * with the AD bit; no records or an unsigned answer fall back to MTA-STS or opportunistic TLS; a SERVFAIL
 * (what a validating resolver answers for bogus data) or no answer at all keeps the host from being used.
 */
export function createDane(options: { server: string; timeoutMs: number; cacheSeconds: number }) {
  // Kept like the MX answers (no TTL read: 300 s, or less when configured); failures are never kept.
  const cache = createDnsCache({ maxEntries: 10_000 });
  const ttlSeconds = Math.min(300, options.cacheSeconds);
  return {
    async lookup(host: string, port: number): Promise<DaneLookup> {
      const name = `_${port}._tcp.${host.replace(/\.$/, "").toLowerCase()}`;
      let answer: Awaited<ReturnType<typeof queryTlsa>>;
      try {
        answer = await cache.get(name, async () => {
          const value = await queryTlsa(options.server, name, options.timeoutMs);
          return { value, ttlSeconds: value.rcode === RCODE_SERVFAIL ? 0 : ttlSeconds };
        });
      } catch (error) {
        return { kind: "bogus", detail: (error as Error).message };
      }
      if (answer.rcode === RCODE_SERVFAIL)
        return { kind: "bogus", detail: `TLSA lookup of ${name}: SERVFAIL` };
      if (answer.rcode === RCODE_NXDOMAIN || answer.rcode !== 0 || !answer.authenticated)
        return { kind: "none" };
      const records = answer.records.filter(usable);
      return records.length > 0 ? { kind: "tlsa", records } : { kind: "none" };
    },
  };
}

function digest(matchingType: number, data: Buffer): Buffer {
  if (matchingType === 1) return createHash("sha256").update(data).digest();
  if (matchingType === 2) return createHash("sha512").update(data).digest();
  return data;
}

function selected(record: TlsaRecord, cert: X509Certificate): Buffer {
  return record.selector === 0 ? cert.raw : cert.publicKey.export({ type: "spki", format: "der" });
}

const matches = (record: TlsaRecord, cert: X509Certificate) =>
  digest(record.matchingType, selected(record, cert)).equals(record.data);

/**
 * Whether the chain the server presented (leaf first) meets one of the TLSA records (RFC 7672 §3.1):
 * DANE-EE matches the leaf alone, its name and dates aside; DANE-TA matches a certificate of the chain that
 * the leaf chains up to, and the leaf must then be valid now and name the MX host.
 */
export function tlsaMatch(
  records: readonly TlsaRecord[],
  chainDer: readonly Buffer[],
  mxHost: string,
): boolean {
  const chain = chainDer.map((der) => new X509Certificate(der));
  const [leaf] = chain;
  if (!leaf) return false;
  if (records.some((r) => r.usage === 3 && matches(r, leaf))) return true;
  const now = Date.now();
  const leafUsable =
    leaf.checkHost(mxHost) !== undefined &&
    Date.parse(leaf.validFrom) <= now &&
    now <= Date.parse(leaf.validTo);
  if (!leafUsable) return false;
  for (let i = 1; i < chain.length; i += 1) {
    const anchor = chain[i];
    const below = chain[i - 1];
    if (!anchor || !below?.checkIssued(anchor) || !below.verify(anchor.publicKey)) return false;
    if (records.some((r) => r.usage === 2 && matches(r, anchor))) return true;
  }
  return false;
}
