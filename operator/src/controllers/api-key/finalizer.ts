/** ApiKey deletion: reclaimPolicy Delete revokes the key (its unsent mail fails api_key_revoked); Retain keeps it. */
import { revokeKey } from "@mailroom/core/keys";
import type { ApiKey } from "../../crds/index.ts";
import { deleteBinding, getBinding } from "../bindings.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, refOf } from "../kind-controller.ts";
import { apiKeySecretName } from "./reconcile.ts";

export async function finalizeApiKey(ctx: ReconcileContext, key: ApiKey): Promise<void> {
  const ref = refOf(key);
  const account = accountOf(key);
  const binding = await getBinding(ctx.pool, "ApiKey", account, ref.name);
  if (!binding || binding.uid !== ref.uid) return;
  if (binding.targetId && (key.spec.reclaimPolicy ?? "Delete") === "Delete") {
    const result = await revokeKey(ctx.pool, binding.targetId);
    const secretName = apiKeySecretName(key);
    const secret = await ctx.secrets.read(account, secretName);
    // The key in it is dead now; only a Secret the operator wrote is the operator's to delete.
    if (secret?.managedByOperator) await ctx.secrets.remove(account, secretName);
    await ctx.events.record(
      ref,
      "Normal",
      "Revoked",
      `revoked key ${binding.targetId} (${result?.failedEmailIds.length ?? 0} unsent emails failed)`,
    );
  } else {
    // Retain keeps a usable key, so the Secret holding it must survive garbage collection of its owner.
    await ctx.secrets.disown(account, apiKeySecretName(key));
    await ctx.events.record(ref, "Normal", "Retained", `key ${binding.targetId} left active (Retain)`);
  }
  await deleteBinding(ctx.pool, "ApiKey", account, ref.name);
}
