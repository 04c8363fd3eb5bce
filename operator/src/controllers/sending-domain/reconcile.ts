/**
 * SendingDomain: one Postgres domain per resource. A domain name may be declared by one resource across all
 * namespaces (an exclusive claim in operator_bindings): the first keeps it, later ones are Ready=False
 * reason Conflict until it is released. Drift: a domain deleted behind the operator's back is re-created
 * (with new DKIM keys, so the records to publish change; an Event says so). spec.dkim.selector names the key
 * on creation only (status.ts). spec.publishDNS mirrors the records into an external-dns DNSEndpoint (dns.ts).
 */
import { createDomain, type DkimAlgorithm, getDomain, normalizeDomainName } from "@mailroom/core/domains";
import type { SendingDomain } from "../../crds/index.ts";
import { findClaimHolder, getBinding, putBinding } from "../bindings.ts";
import { type ConditionState, notOk, ok } from "../conditions.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, type ReconcileOutcome, refOf, type StatusFields } from "../kind-controller.ts";
import { DNS_PUBLISHED, syncDnsEndpoint } from "./dns.ts";
import { selectorChange, sendingDomainFields, sendingDomainReady } from "./status.ts";

/** Verification runs in the worker; look again this often to bring its result into status. */
export const VERIFICATION_POLL_MS = 60_000;
/** A conflicting resource checks this often whether the claim was released. */
export const CONFLICT_RECHECK_MS = 30_000;

const ALGORITHMS: Record<string, DkimAlgorithm> = { "rsa-2048": "rsa", ed25519: "ed25519" };

type Outcome = ReconcileOutcome<StatusFields<"SendingDomain">>;

export async function reconcileSendingDomain(
  ctx: ReconcileContext,
  resource: SendingDomain,
): Promise<Outcome> {
  const ref = refOf(resource);
  const account = accountOf(resource);
  const name = normalizeDomainName(resource.spec.domain);
  const binding = await getBinding(ctx.pool, "SendingDomain", account, ref.name);
  if (binding?.uid !== ref.uid || binding.claim !== name) {
    const claimed = await putBinding(ctx.pool, {
      kind: "SendingDomain",
      namespace: account,
      name: ref.name,
      uid: ref.uid,
      targetId: null,
      claim: name,
    });
    if (!claimed) {
      const holder = await findClaimHolder(ctx.pool, "SendingDomain", name);
      const message = `${name} is already declared by SendingDomain ${holder?.namespace}/${holder?.name}`;
      if (resource.status?.conditions?.find((c) => c.type === "Ready")?.reason !== "Conflict") {
        await ctx.events.record(ref, "Warning", "Conflict", message);
      }
      return {
        fields: {},
        ready: notOk("Conflict", message),
        synced: notOk("Conflict", message),
        requeueAfterMs: CONFLICT_RECHECK_MS,
      };
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
    kind: "SendingDomain",
    namespace: account,
    name: ref.name,
    uid: ref.uid,
    targetId: domain.id,
    claim: name,
  });
  const dnsPublished = await syncDnsEndpoint(ctx, resource, domain);
  const conditions: Record<string, ConditionState> = dnsPublished ? { [DNS_PUBLISHED]: dnsPublished } : {};
  const fields = sendingDomainFields(domain);
  const selectorChanged = selectorChange(resource, domain);
  if (selectorChanged) {
    if (resource.status?.conditions?.find((c) => c.type === "Ready")?.reason !== selectorChanged.reason) {
      await ctx.events.record(ref, "Warning", selectorChanged.reason, selectorChanged.message);
    }
    // The records in status and DNS stay those of the key that exists: mail keeps being signed meanwhile.
    return { fields, ready: selectorChanged, synced: selectorChanged, conditions };
  }
  const ready = sendingDomainReady(domain);
  return {
    fields,
    ready,
    synced: ok("Synced"),
    conditions,
    ...(ready.status === "True" ? {} : { requeueAfterMs: VERIFICATION_POLL_MS }),
  };
}
