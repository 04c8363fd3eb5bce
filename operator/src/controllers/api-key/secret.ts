/**
 * The Secret holding an ApiKey's full value. It carries an ownerReference exactly while reclaimPolicy is
 * Delete: with Retain the key outlives the resource, so the Secret holding it must not be garbage-collected
 * (foreground deletion would delete it before the finalizer could let go of it).
 */
import type { ApiKey } from "../../crds/index.ts";
import { type ObjectRef, ownerReferenceFor, type ReconcileContext, type SecretData } from "../context.ts";

/** The Secret receiving the key. */
export function apiKeySecretName(key: ApiKey): string {
  return key.spec.secretName ?? `${key.metadata.name}-api-key`;
}

/** Adds or drops the Secret's ownerReference to follow the reclaim policy. */
export async function syncOwnerReference(
  ctx: ReconcileContext,
  key: ApiKey,
  ref: ObjectRef,
  secret: SecretData,
): Promise<void> {
  const wanted = ownerReferenceFor(ctx, ref, key.spec.reclaimPolicy);
  const has = secret.ownerUids.includes(ref.uid);
  if (wanted ? !has || secret.ownerUids.length > 1 : has) {
    await ctx.secrets.setOwnerReference(ref.namespace, apiKeySecretName(key), wanted);
  }
}
