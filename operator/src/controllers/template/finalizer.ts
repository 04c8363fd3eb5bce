/** Template deletion: Delete removes the template and its versions; Retain leaves it, still read-only. */
import { MailroomError } from "@mailroom/core/errors";
import { deleteTemplate } from "@mailroom/core/templates";
import type { Template } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { deleteBinding, getBinding } from "../bindings.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, refOf } from "../kind-controller.ts";

export async function finalizeTemplate(ctx: ReconcileContext, resource: Template): Promise<void> {
  const ref = refOf(resource);
  const account = accountOf(resource);
  const binding = await getBinding(ctx.pool, "Template", account, ref.name);
  if (!binding || binding.uid !== ref.uid) return;
  if (binding.targetId && (resource.spec.reclaimPolicy ?? "Delete") === "Delete") {
    try {
      const by = auditByResource(ref);
      await deleteTemplate(ctx.pool, { account, id: binding.targetId, actor: "operator", by });
      await ctx.events.record(ref, "Normal", "Deleted", `deleted template ${binding.targetId}`);
    } catch (error) {
      if (!(error instanceof MailroomError && error.code === "not_found")) throw error;
    }
  }
  await deleteBinding(ctx.pool, "Template", account, ref.name);
}
