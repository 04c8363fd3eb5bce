/**
 * The SendingDomain step that owns Ready: mail can only be sent from a verified domain. Verification runs in
 * the worker, so an unverified domain is looked at again to bring its result into status. A changed
 * spec.dkim.selector is not ready either: the records in status and DNS stay those of the key that exists,
 * and mail keeps being signed meanwhile.
 */
import { conditionOf } from "../conditions.ts";
import { refOf, type StatusFields } from "../kind-controller.ts";
import { readyStep } from "../steps.ts";
import type { DomainResource, SendingDomainState } from "./domain-step.ts";
import { selectorChange, sendingDomainReady } from "./status.ts";

/** How often an unverified domain's status is refreshed from Postgres. */
const VERIFICATION_POLL_MS = 60_000;
/** How often a verified domain is looked at for a rotation the worker started (a new key to publish). */
const ROTATION_POLL_MS = 10 * 60_000;

export const sendingDomainReadyStep = readyStep<
  DomainResource,
  SendingDomainState,
  StatusFields<"SendingDomain">
>("ready", async (ctx, resource, { domain }) => {
  if (!domain) throw new Error("the domain step continued without a domain");
  const selectorChanged = selectorChange(resource, domain);
  if (selectorChanged) {
    if (conditionOf(resource.status, "Ready")?.reason !== selectorChanged.reason) {
      await ctx.events.record(refOf(resource), "Warning", selectorChanged.reason, selectorChanged.message);
    }
    return { condition: selectorChanged };
  }
  const condition = sendingDomainReady(domain);
  if (condition.status !== "True") return { condition, requeueAfterMs: VERIFICATION_POLL_MS };
  // The worker rotates keys on its own: look again to publish a new key and report each step.
  const rotating = domain.dkimKeys.some((k) => k.state !== "active");
  return { condition, requeueAfterMs: rotating ? VERIFICATION_POLL_MS : ROTATION_POLL_MS };
});
