import { applyAccountPolicy } from "@mailroom/core/accounts";
import type { AccountPolicy } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, type KindController, refOf } from "../kind-controller.ts";
import { reconcileAccountPolicy } from "./reconcile.ts";
import { policyName } from "./state.ts";

/** Deleting the policy clears its settings from the account (only if it is the one that set them). */
async function finalizeAccountPolicy(ctx: ReconcileContext, resource: AccountPolicy): Promise<void> {
  const by = auditByResource(refOf(resource));
  await applyAccountPolicy(ctx.pool, accountOf(resource), policyName(resource), null, by);
}

/** The AccountPolicy controller (issue 31). */
export const accountPolicyController: KindController<"AccountPolicy"> = {
  kind: "AccountPolicy",
  reconcile: reconcileAccountPolicy,
  finalize: finalizeAccountPolicy,
};
