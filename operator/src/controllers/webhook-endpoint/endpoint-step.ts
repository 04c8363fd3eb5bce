/**
 * The WebhookEndpoint step that owns Synced: one operator-managed endpoint per resource, signed with the
 * secret of its Secret (secret.ts). A new value in that Secret rotates the endpoint's secret (the old one
 * keeps signing through the overlap). A missing or foreign Secret ends the run, to be looked for again.
 * Drift: a deleted endpoint is re-created; one changed behind the operator's back is set back to the spec.
 */
import {
  activeSecrets,
  createEndpointAs,
  type WebhookEndpoint as EndpointRecord,
  getEndpoint,
  rotateEndpointSecretAs,
  updateEndpoint,
  updateEndpointAs,
} from "@mailroom/core/webhooks";
import type { WebhookEndpoint } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { getBinding, putBinding } from "../bindings.ts";
import { notOk, ok } from "../conditions.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, refOf, type StatusFields } from "../kind-controller.ts";
import type { Step } from "../steps.ts";
import { signingSecret } from "./secret.ts";

/** A missing referenced Secret is looked for again this often. */
const MISSING_SECRET_RECHECK_MS = 30_000;

/** What the endpoint step found, for the Ready step. */
export interface WebhookEndpointState {
  endpoint?: EndpointRecord;
}

async function findEndpoint(ctx: ReconcileContext, account: string, id: string) {
  return getEndpoint(ctx.pool, account, id).catch((error: unknown) => {
    if ((error as { code?: string }).code === "not_found") return undefined;
    throw error;
  });
}

/** Whether the spec asks for something the endpoint does not have (enabled only on a spec edit, see below). */
function differs(
  endpoint: EndpointRecord,
  spec: { url: string; events?: string[] | undefined; description: string | null; enabled: boolean },
  specChanged: boolean,
): boolean {
  const events = [...new Set(spec.events ?? [])].sort().join(",");
  return (
    endpoint.url !== spec.url ||
    [...endpoint.events].sort().join(",") !== events ||
    endpoint.description !== spec.description ||
    (specChanged && endpoint.enabled !== spec.enabled)
  );
}

export const endpointStep: Step<WebhookEndpoint, WebhookEndpointState, StatusFields<"WebhookEndpoint">> = {
  name: "endpoint",
  condition: "Synced",
  async run(ctx, resource, state) {
    const ref = refOf(resource);
    const account = accountOf(resource);
    const signing = await signingSecret(ctx, resource);
    if (!("secret" in signing)) {
      return {
        next: "requeue",
        afterMs: MISSING_SECRET_RECHECK_MS,
        condition: notOk(signing.reason, signing.message),
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
    const by = auditByResource(ref);
    const binding = await getBinding(ctx.pool, "WebhookEndpoint", account, ref.name);
    let endpoint: EndpointRecord | undefined =
      binding?.uid === ref.uid && binding.targetId
        ? await findEndpoint(ctx, account, binding.targetId)
        : undefined;
    if (!endpoint) {
      const created = await createEndpointAs(
        by,
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
      // A resync that changes nothing is not a change for the audit trail; a spec edit or drift set back is.
      const patch = { ...spec, keepAutoDisabled: !specChanged };
      endpoint = differs(endpoint, spec, specChanged)
        ? await updateEndpointAs(by, ctx.pool, { account, id: endpoint.id }, patch, options)
        : await updateEndpoint(ctx.pool, account, endpoint.id, patch, options);
      const [current] = await activeSecrets(ctx.pool, endpoint.id, ctx.now());
      if (current !== secret) {
        const rotation = { ...options, secret, now: ctx.now() };
        await rotateEndpointSecretAs(by, ctx.pool, { account, id: endpoint.id }, rotation);
        await ctx.events.record(ref, "Normal", "SecretRotated", "signing secret rotated from its Secret");
      }
    }
    state.endpoint = endpoint;
    return { next: "continue", condition: ok("Synced") };
  },
};
