/**
 * The WebhookEndpoint step that owns Ready: an endpoint Mailroom delivers to, or one its spec disables. It also reports
 * status.active, status.disabledReason and status.lastDelivery (status.ts), read on every run, the periodic
 * resync included; status is only patched when they changed.
 */
import { getLastAttempt } from "@mailroom/core/webhooks";
import type { WebhookEndpoint } from "../../crds/index.ts";
import type { StatusFields } from "../kind-controller.ts";
import { readyStep } from "../steps.ts";
import type { WebhookEndpointState } from "./endpoint-step.ts";
import { activityOf, lastDeliveryOf } from "./status.ts";

export const webhookEndpointReadyStep = readyStep<
  WebhookEndpoint,
  WebhookEndpointState,
  StatusFields<"WebhookEndpoint">
>("ready", async (ctx, _resource, { endpoint }) => {
  if (!endpoint) throw new Error("the endpoint step continued without an endpoint");
  const { fields, ready } = activityOf(endpoint);
  const attempt = await getLastAttempt(ctx.pool, endpoint.id);
  return {
    condition: ready,
    fields: { ...fields, ...(attempt ? { lastDelivery: lastDeliveryOf(attempt) } : {}) },
  };
});
