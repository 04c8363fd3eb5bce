import { WEBHOOK_EVENT_TYPES } from "@mailroom/core/webhooks";
import {
  ageColumn,
  type CrdDefinition,
  conditionsSchema,
  nameRoomFor,
  observedGenerationSchema,
  readyColumn,
  readyReasonColumn,
  secretNameSchema,
} from "./common.ts";
import type { FromSchema, SchemaProps } from "./schema-types.ts";

/** Events an endpoint can subscribe to: the webhook domain's own list, so the CRD cannot drift from it. */
export const WEBHOOK_EVENTS = WEBHOOK_EVENT_TYPES;

const spec = {
  type: "object",
  required: ["url", "events"],
  properties: {
    url: { type: "string", minLength: 1, maxLength: 2048, pattern: "^https?://[^\\s/?#]+[^\\s]*$" },
    events: {
      type: "array",
      minItems: 1,
      maxItems: WEBHOOK_EVENTS.length,
      items: { type: "string", enum: WEBHOOK_EVENTS },
      "x-kubernetes-list-type": "set",
    },
    secretName: {
      ...secretNameSchema,
      description: "Secret holding the whsec_ signing secret (key signingSecret). Generated when omitted.",
    },
    description: { type: "string", maxLength: 256 },
    enabled: { type: "boolean", default: true },
  },
} as const satisfies SchemaProps;

const status = {
  type: "object",
  properties: {
    active: {
      type: "boolean",
      description:
        "Whether Mailroom delivers to the endpoint now (false when spec.enabled is, or when disabled).",
    },
    disabledReason: {
      type: "string",
      description:
        "Why the endpoint is disabled: by the spec, or by Mailroom (a 410 Gone, days of failures). An endpoint " +
        "Mailroom disabled stays disabled until the spec changes.",
      maxLength: 1024,
    },
    lastDelivery: {
      type: "object",
      required: ["attemptedAt", "outcome"],
      properties: {
        attemptedAt: { type: "string", format: "date-time" },
        eventType: { type: "string", enum: WEBHOOK_EVENTS },
        outcome: { type: "string", enum: ["Succeeded", "Failed"] },
        httpStatus: { type: "integer", minimum: 100, maximum: 599 },
        message: { type: "string", maxLength: 1024 },
      },
    },
    observedGeneration: observedGenerationSchema,
    conditions: conditionsSchema,
  },
} as const satisfies SchemaProps;

/** WebhookEndpoint: a receiver of signed event notifications. */
export const webhookEndpointCrd: CrdDefinition = {
  kind: "WebhookEndpoint",
  plural: "webhookendpoints",
  singular: "webhookendpoint",
  shortNames: ["mrhook"],
  description: "An HTTPS endpoint receiving signed Mailroom events (Standard Webhooks).",
  spec,
  status,
  printerColumns: [
    readyColumn,
    { name: "URL", type: "string", jsonPath: ".spec.url" },
    { name: "Enabled", type: "boolean", jsonPath: ".spec.enabled" },
    { name: "Active", type: "boolean", jsonPath: ".status.active" },
    readyReasonColumn,
    ageColumn,
  ],
  maxNameLength: nameRoomFor("-webhook-secret"),
};

/** WebhookEndpoint spec as read from the API server. */
export type WebhookEndpointSpec = FromSchema<typeof spec>;
/** WebhookEndpoint status. */
export type WebhookEndpointStatus = FromSchema<typeof status>;
