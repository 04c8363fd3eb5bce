import { WEBHOOK_EVENT_TYPES } from "@mailroom/core/webhooks";

/** JSON schemas of the webhook routes: they validate, serialise and document (OpenAPI) at once. */
const url = {
  type: "string",
  minLength: 8,
  maxLength: 2048,
  description: "https:// (or http://) receiver URL",
};
const events = {
  type: "array",
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  items: { type: "string", enum: WEBHOOK_EVENT_TYPES },
  description: "Event types to send; empty or absent means all",
};
const description = { type: ["string", "null"], maxLength: 1024 };

export const createBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["url"],
  properties: { url, events, description, enabled: { type: "boolean" } },
} as const;

export const patchBodySchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: { url, events, description, enabled: { type: "boolean" } },
} as const;

export const rotateBodySchema = {
  type: ["object", "null"],
  additionalProperties: false,
  properties: {
    overlapSeconds: {
      type: "integer",
      minimum: 0,
      maximum: 7 * 86_400,
      description: "How long the previous secrets keep signing (default 86400)",
    },
  },
} as const;

export const idParamsSchema = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", maxLength: 64 } },
} as const;

export const deliveryParamsSchema = {
  type: "object",
  required: ["id", "deliveryId"],
  properties: { id: { type: "string", maxLength: 64 }, deliveryId: { type: "string", maxLength: 64 } },
} as const;

export const deliveriesQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "string", pattern: "^(100|[1-9][0-9]?)$", description: "1–100, default 50" },
    after: {
      type: "string",
      maxLength: 64,
      description: "Cursor: the last id of the previous page (deliveries come newest first)",
    },
    state: { type: "string", enum: ["pending", "succeeded", "failed"] },
  },
} as const;

const nullableString = { type: ["string", "null"] };
export const endpointSchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    url: { type: "string" },
    events: { type: "array", items: { type: "string" } },
    description: nullableString,
    enabled: { type: "boolean" },
    disabledReason: nullableString,
    managedBy: { type: "string", enum: ["api", "operator"] },
    createdAt: { type: "string" },
    updatedAt: { type: "string" },
  },
} as const;

export const createdEndpointSchema = {
  type: "object",
  properties: {
    ...endpointSchema.properties,
    secret: { type: "string", description: "`whsec_…` signing secret, shown only in this answer" },
  },
} as const;

export const rotatedSchema = {
  type: "object",
  properties: {
    secret: { type: "string", description: "The new `whsec_…` secret, shown only in this answer" },
    previousSecretsExpireAt: { type: "string" },
  },
} as const;

export const deliverySchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    eventId: { type: "string" },
    eventType: { type: "string" },
    state: { type: "string" },
    attempts: { type: "integer" },
    nextAttemptAt: nullableString,
    lastStatusCode: { type: ["integer", "null"] },
    lastError: nullableString,
    createdAt: { type: "string" },
    deliveredAt: nullableString,
  },
} as const;

export const deliveryDetailSchema = {
  type: "object",
  properties: {
    ...deliverySchema.properties,
    attemptLog: {
      type: "array",
      items: {
        type: "object",
        properties: {
          attempt: { type: "integer" },
          at: { type: "string" },
          durationMs: { type: "integer" },
          statusCode: { type: ["integer", "null"] },
          responseExcerpt: nullableString,
          error: nullableString,
          nextAttemptAt: nullableString,
        },
      },
    },
  },
} as const;
