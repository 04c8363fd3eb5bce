/**
 * The WebhookEndpoint's signing secret: from the Secret named by spec.secretName (key signingSecret), or
 * generated into `<name>-webhook-secret`, which the operator then owns.
 */
import { generateWebhookSecret } from "@mailroom/core/webhooks";
import type { WebhookEndpoint } from "../../crds/index.ts";
import { ownerReferenceFor, type ReconcileContext, secretConflict } from "../context.ts";
import { refOf } from "../kind-controller.ts";

/** Data key of the signing secret in its Secret. */
const SIGNING_SECRET_KEY = "signingSecret";

/** The Secret holding the signing secret, and whether the operator generates it. */
export function webhookSecretOf(resource: WebhookEndpoint): { name: string; generated: boolean } {
  return resource.spec.secretName
    ? { name: resource.spec.secretName, generated: false }
    : { name: `${resource.metadata.name}-webhook-secret`, generated: true };
}

/** The signing secret, generated into its Secret when the operator owns that; or why there is none. */
export async function signingSecret(
  ctx: ReconcileContext,
  resource: WebhookEndpoint,
): Promise<{ secret: string } | { reason: string; message: string }> {
  const ref = refOf(resource);
  const { name, generated } = webhookSecretOf(resource);
  const current = await ctx.secrets.read(ref.namespace, name);
  const found = current?.data[SIGNING_SECRET_KEY];
  if (found) return { secret: found };
  if (!generated) {
    return { reason: "SecretNotFound", message: `Secret ${name} with key ${SIGNING_SECRET_KEY} not found` };
  }
  // A Secret of that name the operator did not write for this endpoint is never overwritten.
  const conflict = secretConflict(name, current, ref);
  if (conflict) return { reason: "SecretConflict", message: conflict };
  const secret = generateWebhookSecret();
  await ctx.secrets.write(
    ref.namespace,
    name,
    { [SIGNING_SECRET_KEY]: secret },
    {
      ref,
      ownerReference: ownerReferenceFor(ctx, ref),
    },
  );
  return { secret };
}
