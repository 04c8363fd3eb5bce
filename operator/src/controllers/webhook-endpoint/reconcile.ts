/**
 * WebhookEndpoint: one operator-managed endpoint per resource. The signing secret comes from the Secret
 * named by spec.secretName (key signingSecret), or is generated into `<name>-webhook-secret`. A new value in
 * that Secret rotates the endpoint's secret (the old one keeps signing through the overlap). Drift: a deleted
 * endpoint is re-created; one changed behind the operator's back is set back to the spec. status.lastDelivery
 * reports the most recent delivery attempt (status.ts).
 */
import {
  activeSecrets,
  createEndpoint,
  type WebhookEndpoint as EndpointRecord,
  generateWebhookSecret,
  getEndpoint,
  getLastAttempt,
  rotateEndpointSecret,
  updateEndpoint,
} from "@mailroom/core/webhooks";
import type { WebhookEndpoint } from "../../crds/index.ts";
import { getBinding, putBinding } from "../bindings.ts";
import { notOk, ok } from "../conditions.ts";
import { ownerReferenceFor, type ReconcileContext, secretConflict } from "../context.ts";
import { accountOf, type ReconcileOutcome, refOf, type StatusFields } from "../kind-controller.ts";
import { activityOf, isAutoDisabled, lastDeliveryOf } from "./status.ts";

/** Data key of the signing secret in its Secret. */
export const SIGNING_SECRET_KEY = "signingSecret";
/** A missing referenced Secret is looked for again this often. */
export const MISSING_SECRET_RECHECK_MS = 30_000;

type Outcome = ReconcileOutcome<StatusFields<"WebhookEndpoint">>;

/** The Secret holding the signing secret, and whether the operator generates it. */
export function webhookSecretOf(resource: WebhookEndpoint): { name: string; generated: boolean } {
  return resource.spec.secretName
    ? { name: resource.spec.secretName, generated: false }
    : { name: `${resource.metadata.name}-webhook-secret`, generated: true };
}

/** The signing secret, generated into its Secret when the operator owns that; or why there is none. */
async function signingSecret(
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

async function findEndpoint(ctx: ReconcileContext, account: string, id: string) {
  return getEndpoint(ctx.pool, account, id).catch((error: unknown) => {
    if ((error as { code?: string }).code === "not_found") return undefined;
    throw error;
  });
}

export async function reconcileWebhookEndpoint(
  ctx: ReconcileContext,
  resource: WebhookEndpoint,
): Promise<Outcome> {
  const ref = refOf(resource);
  const account = accountOf(resource);
  const signing = await signingSecret(ctx, resource);
  if (!("secret" in signing)) {
    return {
      fields: {},
      ready: notOk(signing.reason, signing.message),
      synced: notOk(signing.reason, signing.message),
      requeueAfterMs: MISSING_SECRET_RECHECK_MS,
    };
  }
  const { secret } = signing;
  const spec = {
    url: resource.spec.url,
    events: resource.spec.events,
    description: resource.spec.description ?? null,
    enabled: resource.spec.enabled ?? true,
  };
  const options = { actor: "operator" as const };
  const binding = await getBinding(ctx.pool, "WebhookEndpoint", account, ref.name);
  let endpoint: EndpointRecord | undefined =
    binding?.uid === ref.uid && binding.targetId
      ? await findEndpoint(ctx, account, binding.targetId)
      : undefined;
  if (!endpoint) {
    const created = await createEndpoint(
      ctx.pool,
      { account, ...spec, managedBy: "operator", name: ref.name, secret },
      options,
    );
    endpoint = created.endpoint;
    await putBinding(ctx.pool, {
      kind: "WebhookEndpoint",
      namespace: account,
      name: ref.name,
      uid: ref.uid,
      targetId: endpoint.id,
      claim: null,
    });
    await ctx.events.record(ref, "Normal", "Created", `created endpoint ${endpoint.id}`);
  } else {
    // An endpoint Mailroom disabled (a 410, days of failures) stays disabled until the spec changes: a
    // resync re-enabling it would defeat the protection. Any spec edit (flip enabled, say) enables it. An
    // object without status yet is a stale read from the informer (the endpoint exists), not an edit.
    const observed = resource.status?.observedGeneration;
    const specChanged = observed !== undefined && resource.metadata.generation !== observed;
    const { enabled, ...rest } = spec;
    const keepDisabled = isAutoDisabled(endpoint) && enabled && !specChanged;
    endpoint = await updateEndpoint(ctx.pool, account, endpoint.id, keepDisabled ? rest : spec, options);
    const [current] = await activeSecrets(ctx.pool, endpoint.id, ctx.now());
    if (current !== secret) {
      await rotateEndpointSecret(ctx.pool, account, endpoint.id, { ...options, secret, now: ctx.now() });
      await ctx.events.record(ref, "Normal", "SecretRotated", "signing secret rotated from its Secret");
    }
  }
  const { fields, ready } = activityOf(endpoint);
  // Read on every reconcile, the periodic resync included; status is only patched when this changed.
  const attempt = await getLastAttempt(ctx.pool, endpoint.id);
  return {
    fields: { ...fields, ...(attempt ? { lastDelivery: lastDeliveryOf(attempt) } : {}) },
    ready,
    synced: ok("Synced"),
  };
}
