/**
 * SendingDomain deletion: Delete removes the domain and its keys; Retain keeps it, and the DNSEndpoint
 * publishing its records. Either releases the claim.
 */
import { deleteDomain } from "@mailroom/core/domains";
import { auditByResource } from "../audit-by.ts";
import { deleteBinding, getBinding } from "../bindings.ts";
import { conditionOf } from "../conditions.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, refOf } from "../kind-controller.ts";
import { DNS_PUBLISHED, dnsEndpointName } from "./dns.ts";
import type { DomainResource } from "./domain-step.ts";

/** Also a ClusterSendingDomain's: its domain (and with it the grants) goes, or stays, the same way. */
export async function finalizeSendingDomain(ctx: ReconcileContext, resource: DomainResource): Promise<void> {
  const ref = refOf(resource);
  const account = accountOf(resource);
  const binding = await getBinding(ctx.pool, resource.kind, account, ref.name);
  // A resource that never held the claim (a Conflict) must not delete the holder's domain.
  if (!binding || binding.uid !== ref.uid) return;
  if (binding.targetId && binding.claim && (resource.spec.reclaimPolicy ?? "Delete") === "Delete") {
    await deleteDomain(ctx.pool, account, binding.claim, { actor: "operator", by: auditByResource(ref) });
    // The records name keys that no longer exist: they go too, whatever the propagation. Left to the garbage
    // collector, an Orphan deletion (which strips the ownerReference first) kept them published forever.
    if (conditionOf(resource.status, DNS_PUBLISHED))
      await ctx.dnsEndpoints.unpublish(ref, dnsEndpointName(ref.name));
    await ctx.events.record(ref, "Normal", "Deleted", `deleted domain ${binding.claim}`);
  } else if (conditionOf(resource.status, DNS_PUBLISHED)) {
    // A retained domain goes on signing mail: its published records must outlive the resource.
    await ctx.dnsEndpoints.disown(ref, dnsEndpointName(ref.name));
  }
  await deleteBinding(ctx.pool, resource.kind, account, ref.name);
}
