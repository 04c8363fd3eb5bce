/**
 * WebhookEndpoint reconcile, in order: `endpoint` (endpoint-step.ts, owns Synced: the signing secret and
 * the endpoint in Postgres), then `ready` (ready-step.ts, owns Ready: whether Mailroom delivers to it, and
 * the outcome of its most recent delivery).
 */
import type { WebhookEndpoint } from "../../crds/index.ts";
import type { StatusFields } from "../kind-controller.ts";
import { defineReconcile } from "../steps.ts";
import { endpointStep, type WebhookEndpointState } from "./endpoint-step.ts";
import { webhookEndpointReadyStep } from "./ready-step.ts";

export const reconcileWebhookEndpoint = defineReconcile<
  WebhookEndpoint,
  WebhookEndpointState,
  StatusFields<"WebhookEndpoint">
>({
  initialState: () => ({}),
  synced: endpointStep,
  steps: [],
  ready: webhookEndpointReadyStep,
});
