import { WEBHOOK_EVENT_TYPES } from "@mailroom/core/webhooks";
import {
  idParamsSchema as idParams,
  nullableString,
  nullableTimestamp,
  pageLimitSchema,
  pageSchema,
  timestamp,
} from "../../../schemas.ts";

/** JSON schemas of the webhook routes: they validate, serialise and document (OpenAPI) at once. */
const url = {
  type: "string",
  minLength: 8,
  maxLength: 2048,
  description: "https:// (or http://) receiver URL",
} as const;
const events = {
  type: "array",
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  items: { type: "string", enum: WEBHOOK_EVENT_TYPES },
  description: "Event types to send; empty or absent means all",
} as const;
const description = { type: ["string", "null"], maxLength: 1024 } as const;

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

export const idParamsSchema = idParams("The webhook endpoint's id");

export const deliveryParamsSchema = {
  type: "object",
  required: ["id", "deliveryId"],
  properties: { id: { type: "string", maxLength: 64 }, deliveryId: { type: "string", maxLength: 64 } },
} as const;

export const deliveriesQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: pageLimitSchema(50),
    after: {
      type: "string",
      maxLength: 64,
      description: "Cursor: the last id of the previous page (deliveries come newest first)",
    },
    state: { type: "string", enum: ["pending", "succeeded", "failed"] },
  },
} as const;

const endpointProperties = {
  id: { type: "string" },
  name: {
    ...nullableString,
    description: "The WebhookEndpoint resource's name (namespace: the account) when the operator manages it",
  },
  url: { type: "string" },
  events: { type: "array", items: { type: "string" } },
  description: nullableString,
  enabled: { type: "boolean" },
  disabledReason: nullableString,
  managedBy: { type: "string", enum: ["api", "operator"] },
  createdAt: timestamp,
  updatedAt: timestamp,
} as const;
const endpointRequired = Object.keys(endpointProperties) as (keyof typeof endpointProperties)[];

export const endpointSchema = {
  type: "object",
  additionalProperties: false,
  required: endpointRequired,
  properties: endpointProperties,
} as const;

export const endpointListSchema = {
  type: "object",
  additionalProperties: false,
  required: ["data"],
  properties: { data: { type: "array", items: endpointSchema } },
} as const;

export const createdEndpointSchema = {
  type: "object",
  additionalProperties: false,
  required: [...endpointRequired, "secret"],
  properties: {
    ...endpointProperties,
    secret: { type: "string", description: "`whsec_…` signing secret, shown only in this answer" },
  },
} as const;

export const rotatedSchema = {
  type: "object",
  additionalProperties: false,
  required: ["secret", "previousSecretsExpireAt"],
  properties: {
    secret: { type: "string", description: "The new `whsec_…` secret, shown only in this answer" },
    previousSecretsExpireAt: timestamp,
  },
} as const;

export const eventTypesSchema = {
  type: "object",
  additionalProperties: false,
  required: ["data"],
  properties: {
    data: {
      type: "array",
      items: { type: "string", enum: WEBHOOK_EVENT_TYPES },
      description: "Every event type an endpoint can subscribe to, as `events` takes them",
    },
  },
} as const;

const deliveryProperties = {
  id: { type: "string" },
  eventId: { type: "string" },
  eventType: { type: "string" },
  state: { type: "string", enum: ["pending", "succeeded", "failed"] },
  attempts: { type: "integer" },
  nextAttemptAt: nullableTimestamp,
  lastStatusCode: { type: ["integer", "null"] },
  lastError: nullableString,
  createdAt: timestamp,
  deliveredAt: nullableTimestamp,
} as const;
const deliveryRequired = Object.keys(deliveryProperties) as (keyof typeof deliveryProperties)[];

export const deliverySchema = {
  type: "object",
  additionalProperties: false,
  required: deliveryRequired,
  properties: deliveryProperties,
} as const;

export const deliveryPageSchema = pageSchema(deliverySchema, "id");

export const deliveryDetailSchema = {
  type: "object",
  additionalProperties: false,
  required: [...deliveryRequired, "attemptLog"],
  properties: {
    ...deliveryProperties,
    attemptLog: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["attempt", "at", "durationMs", "statusCode", "responseExcerpt", "error", "nextAttemptAt"],
        properties: {
          attempt: { type: "integer" },
          at: timestamp,
          durationMs: { type: "integer" },
          statusCode: { type: ["integer", "null"] },
          responseExcerpt: nullableString,
          error: nullableString,
          nextAttemptAt: nullableTimestamp,
        },
      },
    },
  },
} as const;
