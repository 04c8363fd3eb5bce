/** SendingDomain deletion: Delete removes the domain and its keys; Retain keeps it. Either releases the claim. */
import { deleteDomain } from "@mailroom/core/domains";
import type { SendingDomain } from "../../crds/index.ts";
import { deleteBinding, getBinding } from "../bindings.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, refOf } from "../kind-controller.ts";

export async function finalizeSendingDomain(ctx: ReconcileContext, resource: SendingDomain): Promise<void> {
  const ref = refOf(resource);
  const account = accountOf(resource);
  const binding = await getBinding(ctx.pool, "SendingDomain", account, ref.name);
  // A resource that never held the claim (a Conflict) must not delete the holder's domain.
  if (!binding || binding.uid !== ref.uid) return;
  if (binding.targetId && binding.claim && (resource.spec.reclaimPolicy ?? "Delete") === "Delete") {
    await deleteDomain(ctx.pool, account, binding.claim);
    await ctx.events.record(ref, "Normal", "Deleted", `deleted domain ${binding.claim}`);
  }
  await deleteBinding(ctx.pool, "SendingDomain", account, ref.name);
}
