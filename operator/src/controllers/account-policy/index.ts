import { applyAccountPolicy } from "@mailroom/core/accounts";
import type { AccountPolicy } from "../../crds/index.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, type KindController } from "../kind-controller.ts";
import { reconcileAccountPolicy } from "./reconcile.ts";
import { policyName } from "./state.ts";

/** Deleting the policy clears its settings from the account (only if it is the one that set them). */
async function finalizeAccountPolicy(ctx: ReconcileContext, resource: AccountPolicy): Promise<void> {
  await applyAccountPolicy(ctx.pool, accountOf(resource), policyName(resource), null);
}

/** The AccountPolicy controller (issue 31). */
export const accountPolicyController: KindController<"AccountPolicy"> = {
  kind: "AccountPolicy",
  reconcile: reconcileAccountPolicy,
  finalize: finalizeAccountPolicy,
};
