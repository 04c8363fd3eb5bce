/**
 * SendingDomain spec.publishDNS: the domain's records as one external-dns DNSEndpoint in the resource's
 * namespace, owned by it while reclaimPolicy is Delete (garbage-collected with it), and the DNSPublished
 * condition saying what happened.
 * The status condition is also the memory of having published: only a resource that carries it has a
 * DNSEndpoint to take back when publishDNS turns false.
 */
import { createHash } from "node:crypto";
import { type DomainRecord, formatTxtForZoneFile } from "@mailroom/core/domains";
import type { SendingDomain } from "../../crds/index.ts";
import type { DnsEndpointRecord } from "../../external-dns.ts";
import { type ConditionState, conditionOf, notOk, ok } from "../conditions.ts";
import type { ReconcileContext } from "../context.ts";
import { refOf } from "../kind-controller.ts";

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

/**
 * Converges the DNSEndpoint with spec.publishDNS. Returns the DNSPublished condition, or undefined when
 * there is none to show (publishDNS off). An absent CRD or a foreign object of that name is a condition
 * and a Warning Event, never a failed reconcile.
 */
export async function syncDnsEndpoint(
  ctx: ReconcileContext,
  resource: SendingDomain,
  domain: DomainRecord,
): Promise<ConditionState | undefined> {
  const ref = refOf(resource);
  const name = dnsEndpointName(ref.name);
  const previous = conditionOf(resource.status, DNS_PUBLISHED);
  if (!resource.spec.publishDNS) {
    if (previous) {
      await ctx.dnsEndpoints.unpublish(ref, name);
      if (previous.status === "True") {
        await ctx.events.record(ref, "Normal", "DNSUnpublished", `deleted DNSEndpoint ${name}`);
      }
    }
    return undefined;
  }
  const records = dnsEndpointRecords(domain);
  // Owned only under reclaimPolicy Delete: a retained domain goes on signing, its records must stay.
  const published = await ctx.dnsEndpoints.publish(ref, name, records, {
    ownerReference: (resource.spec.reclaimPolicy ?? "Delete") === "Delete",
  });
  let state: ConditionState;
  if (published.result === "published") {
    state = ok("Published", `DNSEndpoint ${name} holds the ${records.length} records for external-dns`);
    if (published.changed) {
      await ctx.events.record(
        ref,
        "Normal",
        "DNSPublished",
        `wrote ${records.length} records to DNSEndpoint ${name}`,
      );
    }
  } else {
    state = notOk(
      published.result === "unavailable" ? "DNSEndpointUnavailable" : "DNSEndpointConflict",
      published.message,
    );
    if (previous?.reason !== state.reason)
      await ctx.events.record(ref, "Warning", state.reason, state.message);
  }
  return state;
}
