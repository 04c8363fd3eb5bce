/** SendingDomain status: the records to publish with their verification, and Ready = verified. */
import type { DomainRecord } from "@mailroom/core/domains";
import type { ClusterSendingDomain, SendingDomain } from "../../crds/index.ts";
import { type ConditionState, notOk, ok } from "../conditions.ts";
import type { StatusFields } from "../kind-controller.ts";

export function sendingDomainFields(domain: DomainRecord): StatusFields<"SendingDomain"> {
  return {
    verification: domain.status,
    records: domain.records.map((r) => ({ type: r.type, name: r.name, value: r.value, status: r.status })),
  };
}

/** Mail can only be sent from a verified domain, so that is what Ready means. */
export function sendingDomainReady(domain: DomainRecord): ConditionState {
  if (domain.status === "verified") return ok("Verified", `${domain.name} is verified`);
  const failing = domain.records.find((r) => r.required && r.status !== "verified" && r.reason);
  const why = domain.statusReason ?? failing?.reason ?? "publish the records in status.records";
  return notOk(domain.status === "pending" ? "VerificationPending" : "VerificationFailed", why);
}

/**
 * spec.dkim.selector names the key a domain is created with and cannot change afterwards (the CRD refuses
 * a changed value; this catches one added later, and local mode, which has no CRD validation).
 */
export function selectorChange(
  resource: SendingDomain | ClusterSendingDomain,
  domain: DomainRecord,
): ConditionState | undefined {
  const wanted = resource.spec.dkim?.selector;
  // Once rotated, the first key (the one the selector named) is gone by design: nothing to compare.
  if (domain.dkimKeys.some((k) => k.createdAt.getTime() > domain.createdAt.getTime())) return undefined;
  const actual = domain.dkimKeys.find((k) => k.algorithm === "rsa")?.selector;
  if (wanted === undefined || actual === undefined || wanted === actual) return undefined;
  return notOk(
    "SelectorImmutable",
    `spec.dkim.selector is ${wanted}, but the DKIM key of ${domain.name} was created with selector ${actual} ` +
      "and a selector cannot change: remove it from the spec, or delete and re-create the domain for new keys",
  );
}
