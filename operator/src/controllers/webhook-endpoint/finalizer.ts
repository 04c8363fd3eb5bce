/**
 * WebhookEndpoint deletion removes the endpoint: the CRD has no reclaimPolicy for it, since an endpoint
 * nobody declares would go on receiving an account's events unmanaged.
 */
import { deleteEndpointAs } from "@mailroom/core/webhooks";
import type { WebhookEndpoint } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { deleteBinding, getBinding } from "../bindings.ts";
import { type ReconcileContext, secretConflict } from "../context.ts";
import { accountOf, refOf } from "../kind-controller.ts";
import { webhookSecretOf } from "./secret.ts";

export async function finalizeWebhookEndpoint(
  ctx: ReconcileContext,
  resource: WebhookEndpoint,
): Promise<void> {
  const ref = refOf(resource);
  const account = accountOf(resource);
  const binding = await getBinding(ctx.pool, "WebhookEndpoint", account, ref.name);
  if (!binding || binding.uid !== ref.uid) return;
  if (binding.targetId) {
    const target = { account, id: binding.targetId };
    await deleteEndpointAs(auditByResource(ref), ctx.pool, target, { actor: "operator" }).catch(
      (error: unknown) => {
        if ((error as { code?: string }).code !== "not_found") throw error;
      },
    );
    await ctx.events.record(ref, "Normal", "Deleted", `deleted endpoint ${binding.targetId}`);
  }
  const secret = webhookSecretOf(resource);
  const current = secret.generated ? await ctx.secrets.read(account, secret.name) : undefined;
  // Only the Secret the operator generated for this endpoint is deleted with it.
  if (current && !secretConflict(secret.name, current, ref)) await ctx.secrets.remove(account, secret.name);
  await deleteBinding(ctx.pool, "WebhookEndpoint", account, ref.name);
}
