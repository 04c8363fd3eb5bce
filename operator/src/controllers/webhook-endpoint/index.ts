import type { KindController } from "../kind-controller.ts";
import { finalizeWebhookEndpoint } from "./finalizer.ts";
import { reconcileWebhookEndpoint } from "./reconcile.ts";

/** The WebhookEndpoint controller. */
export const webhookEndpointController: KindController<"WebhookEndpoint"> = {
  kind: "WebhookEndpoint",
  reconcile: reconcileWebhookEndpoint,
  finalize: finalizeWebhookEndpoint,
};
