/** ApiKey deletion: reclaimPolicy Delete revokes the key (its unsent mail fails api_key_revoked); Retain keeps it. */
import { revokeKey } from "@mailroom/core/keys";
import type { ApiKey } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { deleteBinding, getBinding } from "../bindings.ts";
import { type ReconcileContext, secretConflict } from "../context.ts";
import { accountOf, refOf } from "../kind-controller.ts";
import { apiKeySecretName } from "./secret.ts";

export async function finalizeApiKey(ctx: ReconcileContext, key: ApiKey): Promise<void> {
  const ref = refOf(key);
  const account = accountOf(key);
  const binding = await getBinding(ctx.pool, "ApiKey", account, ref.name);
  if (!binding || binding.uid !== ref.uid) return;
  const secretName = apiKeySecretName(key);
  const secret = await ctx.secrets.read(account, secretName);
  // Only a Secret the operator wrote for this resource is this resource's to delete or let go.
  const ours = secret !== undefined && secretConflict(secretName, secret, ref) === undefined;
  if (binding.targetId && (key.spec.reclaimPolicy ?? "Delete") === "Delete") {
    const result = await revokeKey(ctx.pool, binding.targetId, auditByResource(ref));
    // The key in it is dead now.
    if (ours) await ctx.secrets.remove(account, secretName);
    await ctx.events.record(
      ref,
      "Normal",
      "Revoked",
      `revoked key ${binding.targetId} (${result?.failedEmailIds.length ?? 0} unsent emails failed)`,
    );
  } else {
    // Retain keeps a usable key. Its Secret lost its ownerReference when the policy became Retain; this
    // catches a policy changed and deleted at once, before a reconcile saw it (background deletion only).
    if (ours && secret.ownerUids.includes(ref.uid))
      await ctx.secrets.setOwnerReference(account, secretName, undefined);
    await ctx.events.record(ref, "Normal", "Retained", `key ${binding.targetId} left active (Retain)`);
  }
  await deleteBinding(ctx.pool, "ApiKey", account, ref.name);
}
