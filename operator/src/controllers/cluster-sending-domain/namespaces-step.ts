/**
 * The ClusterSendingDomain step that owns NamespacesAllowed: spec.allowedNamespaces resolved against the
 * cluster's namespaces (their labels read at every reconcile) and written as the domain's grants, so a
 * namespace added to or removed from the list, or whose labels change, may or may no longer send from it.
 * An Event names the namespaces that changed.
 */
import { setDomainGrants } from "@mailroom/core/domains";
import type { ClusterSendingDomain } from "../../crds/index.ts";
import { notOk, ok } from "../conditions.ts";
import { refOf, type StatusFields } from "../kind-controller.ts";
import type { SendingDomainState } from "../sending-domain/domain-step.ts";
import type { Step } from "../steps.ts";
import { allowedNamespaces } from "./allowed.ts";

export const NAMESPACES_ALLOWED = "NamespacesAllowed";

/** At most this many namespaces are named in a condition's message; status.namespaces has them all. */
const NAMED_IN_MESSAGE = 20;

function listed(names: readonly string[]): string {
  const shown = names.slice(0, NAMED_IN_MESSAGE).join(", ");
  return names.length > NAMED_IN_MESSAGE ? `${shown} and ${names.length - NAMED_IN_MESSAGE} more` : shown;
}

export const namespacesStep: Step<
  ClusterSendingDomain,
  SendingDomainState,
  StatusFields<"ClusterSendingDomain">
> = {
  name: "namespaces",
  condition: NAMESPACES_ALLOWED,
  async run(ctx, resource, { domain }) {
    if (!domain) throw new Error("the domain step continued without a domain");
    const spec = resource.spec.allowedNamespaces ?? {};
    const namespaces = spec.selector ? await ctx.namespaces.list() : [];
    const allowed = allowedNamespaces(spec, namespaces);
    const { added, removed } = await setDomainGrants(ctx.pool, domain.id, allowed);
    if (added.length > 0 || removed.length > 0) {
      const parts = [
        added.length > 0 ? `allowed ${listed(added)}` : "",
        removed.length > 0 ? `no longer allowed ${listed(removed)}` : "",
      ].filter(Boolean);
      await ctx.events.record(
        refOf(resource),
        "Normal",
        "NamespacesChanged",
        `${domain.name}: ${parts.join("; ")}`,
      );
    }
    const condition =
      allowed.length > 0
        ? ok("Allowed", `${allowed.length} namespace(s) may send from ${domain.name}: ${listed(allowed)}`)
        : notOk(
            "NoNamespaceAllowed",
            `no namespace matches spec.allowedNamespaces: nobody can send from ${domain.name}`,
          );
    return { next: "continue", condition, fields: { namespaces: allowed } };
  },
};
