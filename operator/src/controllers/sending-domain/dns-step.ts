/**
 * The SendingDomain step that owns DNSPublished: with spec.publishDNS, the domain's records as one
 * external-dns DNSEndpoint (dns.ts), owned by the resource while reclaimPolicy is Delete (garbage-collected
 * with it). An absent CRD or a foreign object of that name is DNSPublished=False and a Warning Event, never
 * a failed reconcile, and never ends the run: the domain works whoever publishes its records.
 * The condition is also the memory of having published: only a resource that carries it has a DNSEndpoint
 * to take back when publishDNS turns false (and then the condition leaves status).
 */
import type { SendingDomain } from "../../crds/index.ts";
import { type ConditionState, conditionOf, notOk, ok } from "../conditions.ts";
import { refOf, type StatusFields } from "../kind-controller.ts";
import type { Step } from "../steps.ts";
import { DNS_PUBLISHED, dnsEndpointName, dnsEndpointRecords } from "./dns.ts";
import type { SendingDomainState } from "./domain-step.ts";

export const dnsStep: Step<SendingDomain, SendingDomainState, StatusFields<"SendingDomain">> = {
  name: "dns-endpoint",
  condition: DNS_PUBLISHED,
  async run(ctx, resource, { domain }) {
    if (!domain) throw new Error("the domain step continued without a domain");
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
      return { next: "continue", condition: null };
    }
    const records = dnsEndpointRecords(domain);
    // Owned only under reclaimPolicy Delete: a retained domain goes on signing, its records must stay.
    const published = await ctx.dnsEndpoints.publish(ref, name, records, {
      ownerReference: (resource.spec.reclaimPolicy ?? "Delete") === "Delete",
    });
    let condition: ConditionState;
    if (published.result === "published") {
      condition = ok("Published", `DNSEndpoint ${name} holds the ${records.length} records for external-dns`);
      if (published.changed) {
        await ctx.events.record(
          ref,
          "Normal",
          "DNSPublished",
          `wrote ${records.length} records to DNSEndpoint ${name}`,
        );
      }
    } else {
      condition = notOk(
        published.result === "unavailable" ? "DNSEndpointUnavailable" : "DNSEndpointConflict",
        published.message,
      );
      if (previous?.reason !== condition.reason)
        await ctx.events.record(ref, "Warning", condition.reason, condition.message);
    }
    return { next: "continue", condition };
  },
};
