/**
 * external-dns's DNSEndpoint custom resource (externaldns.k8s.io/v1alpha1), the part of it the operator
 * writes. Not our CRD: a cluster has it only when external-dns's CRD source is installed.
 */
import type { V1ObjectMeta } from "@kubernetes/client-node";

export const DNS_ENDPOINT_GROUP = "externaldns.k8s.io";
export const DNS_ENDPOINT_VERSION = "v1alpha1";
export const DNS_ENDPOINT_PLURAL = "dnsendpoints";
export const DNS_ENDPOINT_API_VERSION = `${DNS_ENDPOINT_GROUP}/${DNS_ENDPOINT_VERSION}`;
/** `dnsendpoints.externaldns.k8s.io`, as the API server names the resource in messages. */
export const DNS_ENDPOINT_RESOURCE = `${DNS_ENDPOINT_PLURAL}.${DNS_ENDPOINT_GROUP}`;

/** One DNS record set: external-dns's `endpoint.Endpoint`. */
export interface DnsEndpointRecord {
  dnsName: string;
  recordType: "TXT" | "MX";
  /**
   * One entry per record of the set. A TXT target is the record's RDATA in zone-file form (RFC 1035
   * §3.3.14): quoted character-strings of at most 255 bytes each, `"first" "second"`. An MX target is
   * `<priority> <host>`.
   */
  targets: string[];
  /** Seconds; 0 or absent lets the provider choose. */
  recordTTL?: number;
}

/** A DNSEndpoint as the API server returns it. */
export interface DnsEndpoint {
  apiVersion: typeof DNS_ENDPOINT_API_VERSION;
  kind: "DNSEndpoint";
  metadata: V1ObjectMeta;
  spec: { endpoints?: DnsEndpointRecord[] };
  status?: { observedGeneration?: number };
}
