/**
 * SendingDomain spec.publishDNS: the domain's records as one external-dns DNSEndpoint in the resource's
 * namespace, named after it. The step that publishes it is dns-step.ts.
 */
import { createHash } from "node:crypto";
import { type DomainRecord, formatTxtForZoneFile } from "@mailroom/core/domains";
import type { DnsEndpointRecord } from "../../external-dns.ts";

/** The condition reporting the DNSEndpoint, present while spec.publishDNS is true. */
export const DNS_PUBLISHED = "DNSPublished";
/** TTL of the published records: an hour, so keys re-created after drift reach resolvers the same day. */
export const DNS_RECORD_TTL_SECONDS = 3600;

const MAX_OBJECT_NAME = 253;
const SUFFIX = "-dns";

/** `<name>-dns`; a name too long for that keeps its start and gains a hash of the whole, to stay unique. */
export function dnsEndpointName(resourceName: string): string {
  const plain = `${resourceName}${SUFFIX}`;
  if (plain.length <= MAX_OBJECT_NAME) return plain;
  const hash = createHash("sha256").update(resourceName).digest("hex").slice(0, 10);
  const head = resourceName.slice(0, MAX_OBJECT_NAME - hash.length - SUFFIX.length - 1).replace(/[-.]+$/, "");
  return `${head}-${hash}${SUFFIX}`;
}

/**
 * The domain's records as external-dns endpoints. A TXT record is one target in zone-file form, its value
 * split into quoted ≤255-byte character-strings: several targets would be several TXT records, and a DKIM
 * key spread over two records is no key at all. The MX of the bounce domain is `<priority> <host>`.
 */
export function dnsEndpointRecords(domain: DomainRecord): DnsEndpointRecord[] {
  return domain.records.map((record) => ({
    dnsName: record.name,
    recordType: record.type,
    targets: [record.type === "TXT" ? formatTxtForZoneFile(record.value) : record.value],
    recordTTL: DNS_RECORD_TTL_SECONDS,
  }));
}
