/**
 * The SendingDomain step that owns Compliant (issue 29 item 2): the domain's compliance checks, evaluated by
 * the worker and the verify route at each verification (core/src/domains/checks), as one condition and as
 * the list status.checks (name, status, reason, lastChecked). A Warning
 * Event when the failing checks change; the webhook event and the alert come from the worker's side.
 */
import type { DomainRecord } from "@mailroom/core/domains";
import { type ConditionState, conditionOf, notOk, ok } from "../conditions.ts";
import { refOf, type StatusFields } from "../kind-controller.ts";
import { toRfc3339 } from "../rfc3339.ts";
import type { Step } from "../steps.ts";
import type { DomainResource, SendingDomainState } from "./domain-step.ts";

export const COMPLIANT = "Compliant";

function compliance(domain: DomainRecord): ConditionState {
  if (domain.checks.length === 0) {
    return { status: "Unknown", reason: "NotChecked", message: "checked at the first verification" };
  }
  const failing = domain.checks.filter((c) => c.status === "fail");
  if (failing.length > 0) {
    return notOk("CheckFailing", failing.map((c) => `${c.name}: ${c.reason}`).join("; "));
  }
  const unknown = domain.checks.filter((c) => c.status === "unknown").map((c) => c.name);
  return ok(
    "ChecksPass",
    unknown.length > 0 ? `not decidable now: ${unknown.join(", ")}` : "every check passes",
  );
}

export const checksStep: Step<DomainResource, SendingDomainState, StatusFields<"SendingDomain">> = {
  name: "compliance",
  condition: COMPLIANT,
  async run(ctx, resource, { domain }) {
    if (!domain) throw new Error("the domain step continued without a domain");
    const condition = compliance(domain);
    const previous = conditionOf(resource.status, COMPLIANT);
    if (condition.status === "False" && previous?.message !== condition.message) {
      await ctx.events.record(refOf(resource), "Warning", condition.reason, condition.message);
    }
    const checks = domain.checks.map((c) => ({
      name: c.name,
      status: c.status,
      // The CRD bounds it; core's reasons are short, a resolver's error text need not be.
      reason: c.reason.slice(0, 1024),
      lastChecked: toRfc3339(c.checkedAt),
    }));
    return { next: "continue", condition, fields: { checks } };
  },
};
