/**
 * The SendingDomain step that owns Synced: one Postgres domain per resource. A domain name may be declared
 * by one resource across all namespaces (an exclusive claim in operator_bindings): the first keeps it, later
 * ones end the run with Conflict and look again until it is released. Drift: a domain deleted behind the
 * operator's back is re-created (with new DKIM keys, so the records to publish change; an Event says so).
 * spec.dkim.selector names the key on creation only: a changed one is Synced=False (status.ts), and the run
 * goes on, since the records of the key that exists are still the ones to publish.
 */
import {
  createDomain,
  type DkimAlgorithm,
  type DomainRecord,
  getDomain,
  normalizeDomainName,
} from "@mailroom/core/domains";
import type { ClusterSendingDomain, SendingDomain } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { findClaimHolder, getBinding, putBinding } from "../bindings.ts";
import { conditionOf, notOk, ok } from "../conditions.ts";
import { accountOf, refOf, type StatusFields } from "../kind-controller.ts";
import type { Step } from "../steps.ts";
import { selectorChange, sendingDomainFields } from "./status.ts";

/** A conflicting resource checks this often whether the claim was released. */
const CONFLICT_RECHECK_MS = 30_000;

const ALGORITHMS: Record<string, DkimAlgorithm> = { "rsa-2048": "rsa", ed25519: "ed25519" };

/** Both domain kinds: a ClusterSendingDomain runs these steps too, as the reserved account (ADR 0054). */
export type DomainResource = SendingDomain | ClusterSendingDomain;
const DOMAIN_KINDS = ["SendingDomain", "ClusterSendingDomain"] as const;

/** `SendingDomain ns/name` or `ClusterSendingDomain name`: who holds a domain, for a Conflict message. */
function holderName(holder: { kind: string; namespace: string; name: string } | undefined): string {
  if (!holder) return "another resource";
  return holder.kind === "ClusterSendingDomain"
    ? `ClusterSendingDomain ${holder.name}`
    : `${holder.kind} ${holder.namespace}/${holder.name}`;
}

/** What the domain step found, for the later steps. */
export interface SendingDomainState {
  domain?: DomainRecord;
}

export const domainStep: Step<DomainResource, SendingDomainState, StatusFields<"SendingDomain">> = {
  name: "domain",
  condition: "Synced",
  async run(ctx, resource, state) {
    const ref = refOf(resource);
    const account = accountOf(resource);
    const name = normalizeDomainName(resource.spec.domain);
    const kind = resource.kind;
    const binding = await getBinding(ctx.pool, kind, account, ref.name);
    if (binding?.uid !== ref.uid || binding.claim !== name) {
      const claimed = await putBinding(ctx.pool, {
        kind,
        namespace: account,
        name: ref.name,
        uid: ref.uid,
        targetId: null,
        claim: name,
      });
      if (!claimed) {
        const holder = await findClaimHolder(ctx.pool, DOMAIN_KINDS, name);
        const message = `${name} is already declared by ${holderName(holder)}`;
        if (conditionOf(resource.status, "Ready")?.reason !== "Conflict") {
          await ctx.events.record(ref, "Warning", "Conflict", message);
        }
        return { next: "requeue", afterMs: CONFLICT_RECHECK_MS, condition: notOk("Conflict", message) };
      }
    }
    let domain = await getDomain(ctx.pool, account, name);
    if (!domain) {
      const algorithms = (resource.spec.dkim?.algorithms ?? ["rsa-2048"]).map((a) => ALGORITHMS[a] ?? "rsa");
      const selector = resource.spec.dkim?.selector;
      domain = await createDomain(ctx.pool, ctx.kek, {
        account,
        name,
        algorithms,
        ...(selector ? { selector } : {}),
        records: ctx.dnsRecords,
        now: ctx.now(),
        managedBy: "operator",
        by: auditByResource(ref),
      });
      const recreated = binding?.targetId && binding.uid === ref.uid;
      await ctx.events.record(
        ref,
        recreated ? "Warning" : "Normal",
        recreated ? "Recreated" : "Created",
        recreated
          ? `${name} was deleted outside the operator; re-created it with new DKIM keys: publish the new records`
          : `created ${name}; publish the records in status.records`,
      );
    }
    await putBinding(ctx.pool, {
      kind,
      namespace: account,
      name: ref.name,
      uid: ref.uid,
      targetId: domain.id,
      claim: name,
    });
    state.domain = domain;
    return {
      next: "continue",
      condition: selectorChange(resource, domain) ?? ok("Synced"),
      fields: sendingDomainFields(domain),
    };
  },
};
