/**
 * The SendingDomain step that owns DKIMRotation (issue 29, ADR 0035). It does not decide anything: core's
 * decider, run by the worker, moves the keys; this step hands it the spec (spec.dkim.rotation.intervalDays,
 * the rotate-now annotation) and reports what it did: status.dkim (active, pending and retiring selectors with
 * their dates) and one Kubernetes Event per step, found by comparing with the status it wrote last time. The
 * records of every published key, pending and retiring ones included, reach DNS through the dns step.
 */
import {
  DEFAULT_ROTATION_INTERVAL_DAYS,
  type DomainRecord,
  getDomainById,
  requestRotation,
  setRotationInterval,
} from "@mailroom/core/domains";
import { auditByResource } from "../audit-by.ts";
import { type ConditionState, notOk, ok } from "../conditions.ts";
import { refOf, type StatusFields } from "../kind-controller.ts";
import { toRfc3339 } from "../rfc3339.ts";
import type { Step } from "../steps.ts";
import { dkimRotationEvents, dkimStatus } from "./dkim-status.ts";
import type { DomainResource, SendingDomainState } from "./domain-step.ts";

export const DKIM_ROTATION = "DKIMRotation";
/** `mailroom.dev/rotate-dkim: <token>` rotates once per token; `compromised:<token>` withdraws at once. */
export const ROTATE_ANNOTATION = "mailroom.dev/rotate-dkim";
const COMPROMISED_PREFIX = "compromised:";

function conditionFor(domain: DomainRecord): ConditionState {
  const pending = domain.dkimKeys.filter((k) => k.state === "pending");
  const retiring = domain.dkimKeys.filter((k) => k.state === "retiring");
  if (pending.length > 0) {
    const waiting = pending.filter((k) => !k.servedAt).map((k) => k.selector);
    return waiting.length > 0
      ? notOk(
          "AwaitingDNS",
          `new DKIM key ${waiting.join(", ")} signs once DNS serves it: publish status.records ` +
            "(spec.publishDNS does it through external-dns)",
        )
      : ok("Settling", `DNS serves ${pending.map((k) => k.selector).join(", ")}; it signs within the hour`);
  }
  if (retiring.length > 0) {
    const until = retiring.map((k) => `${k.selector} until ${k.withdrawAt ? toRfc3339(k.withdrawAt) : "?"}`);
    return ok("Retiring", `old selectors stay published for mail already signed: ${until.join(", ")}`);
  }
  const next = domain.dkimRotation.nextRotationAt;
  return ok("Current", next ? `next rotation ${toRfc3339(next)}` : "scheduled rotation is off");
}

export const dkimStep: Step<DomainResource, SendingDomainState, StatusFields<"SendingDomain">> = {
  name: "dkim-rotation",
  condition: DKIM_ROTATION,
  async run(ctx, resource, state) {
    let domain = state.domain;
    if (!domain) throw new Error("the domain step continued without a domain");
    const ref = refOf(resource);
    const interval = resource.spec.dkim?.rotation?.intervalDays ?? DEFAULT_ROTATION_INTERVAL_DAYS;
    let changed = interval !== domain.dkimRotation.intervalDays;
    const audit = { by: auditByResource(ref), account: domain.account, domain: domain.name };
    if (changed) await setRotationInterval(ctx.pool, domain.id, interval, audit);
    const token = resource.metadata.annotations?.[ROTATE_ANNOTATION];
    if (token) {
      const compromised = token.startsWith(COMPROMISED_PREFIX);
      const request = { compromised, token, now: ctx.now() };
      const result = await requestRotation(ctx.pool, domain.id, request, audit);
      if (result !== "already_handled") {
        changed = true;
        await ctx.events.record(
          ref,
          compromised ? "Warning" : "Normal",
          compromised ? "DKIMCompromiseRotationRequested" : "DKIMRotationRequested",
          result === "already_rotating"
            ? "a DKIM rotation is already under way; this request is part of it"
            : `DKIM rotation requested (${ROTATE_ANNOTATION}: ${token.slice(0, 100)}); the worker starts it`,
        );
      }
    }
    if (changed) {
      domain = (await getDomainById(ctx.pool, domain.id)) ?? domain;
      state.domain = domain;
    }
    for (const event of dkimRotationEvents(resource.status?.dkim, domain)) {
      await ctx.events.record(ref, event.type, event.reason, event.message);
    }
    return { next: "continue", condition: conditionFor(domain), fields: { dkim: dkimStatus(domain) } };
  },
};
