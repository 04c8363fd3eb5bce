/**
 * The AccountPolicy step that owns Synced: writes the policy's settings onto the namespace's account's row
 * (core/src/accounts/policy.ts). One policy per namespace: a second one changes nothing and is a Conflict.
 */
import { type AccountPolicySettings, applyAccountPolicy } from "@mailroom/core/accounts";
import type { AccountPolicy } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { notOk, ok } from "../conditions.ts";
import { accountOf, refOf, type StatusFields } from "../kind-controller.ts";
import type { Step } from "../steps.ts";
import { type PolicyState, policyName } from "./state.ts";

export function settingsOf(resource: AccountPolicy): AccountPolicySettings {
  const spec = resource.spec ?? {};
  return {
    emailsPerSecond: spec.limits?.emailsPerSecond,
    emailsPerDay: spec.limits?.emailsPerDay,
    batchSize: spec.limits?.batchSize,
    retentionDays: spec.logRetentionDays,
    allowedCategories: spec.categories ? [...spec.categories] : undefined,
    reputation: spec.reputation ? { ...spec.reputation } : undefined,
  };
}

export const policyStep: Step<AccountPolicy, PolicyState, StatusFields<"AccountPolicy">> = {
  name: "policy",
  condition: "Synced",
  async run(ctx, resource) {
    const applied = await applyAccountPolicy(
      ctx.pool,
      accountOf(resource),
      policyName(resource),
      settingsOf(resource),
      auditByResource(refOf(resource)),
    );
    if (!applied) {
      const message = `another AccountPolicy already governs namespace ${accountOf(resource)}; only one applies`;
      return { next: "stop", condition: notOk("Conflict", message) };
    }
    return { next: "continue", condition: ok("Synced") };
  },
};
