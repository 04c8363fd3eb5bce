/**
 * ClusterSendingDomain reconcile: SendingDomain's steps on the domain of the reserved account `@cluster`
 * (ADR 0054): `domain` (owns Synced: the claim on the name, shared with SendingDomains, the domain and its
 * DKIM keys), `namespaces` (namespaces-step.ts, owns NamespacesAllowed: the grants), `dkim-rotation` (owns
 * DKIMRotation), `compliance` (owns Compliant), then `ready` (owns Ready: verified or not). No DNSEndpoint:
 * external-dns's is namespaced and this resource has no namespace; its records are in status.records.
 */
import type { ClusterSendingDomain } from "../../crds/index.ts";
import type { StatusFields } from "../kind-controller.ts";
import { checksStep } from "../sending-domain/checks-step.ts";
import { dkimStep } from "../sending-domain/dkim-step.ts";
import { domainStep, type SendingDomainState } from "../sending-domain/domain-step.ts";
import { sendingDomainReadyStep } from "../sending-domain/ready-step.ts";
import { defineReconcile, type ReadyStep } from "../steps.ts";
import { namespacesStep } from "./namespaces-step.ts";

/**
 * How often a selector is re-read without any change of the resource: namespaces are not watched, so a
 * namespace's labels changing takes effect within this time (a name added to or removed from the list
 * changes the resource, which is reconciled at once).
 */
const NAMESPACE_RECHECK_MS = 60_000;

type Fields = StatusFields<"ClusterSendingDomain">;

/** SendingDomain's Ready, looking again at least every NAMESPACE_RECHECK_MS while a selector is in use. */
const readyStep: ReadyStep<ClusterSendingDomain, SendingDomainState, Fields> = {
  name: "ready",
  async run(ctx, resource, state, blocked) {
    const result = await sendingDomainReadyStep.run(ctx, resource, state, blocked);
    if (!resource.spec.allowedNamespaces?.selector) return result;
    return {
      ...result,
      requeueAfterMs: Math.min(result.requeueAfterMs ?? NAMESPACE_RECHECK_MS, NAMESPACE_RECHECK_MS),
    };
  },
};

export const reconcileClusterSendingDomain = defineReconcile<
  ClusterSendingDomain,
  SendingDomainState,
  Fields
>({
  initialState: () => ({}),
  synced: domainStep,
  steps: [namespacesStep, dkimStep, checksStep],
  ready: readyStep,
});
