import { STATS_BUCKETS, STATS_DIMENSIONS } from "@mailroom/core/stats";
import { timestamp } from "../../../schemas.ts";

/** JSON schemas of `GET /v1/stats`: they validate, serialise and document (OpenAPI) at once. */
export const statsQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    from: {
      type: "string",
      format: "date-time",
      description:
        "Start of the period (widened to its UTC bucket); default: a day (hour) or 30 days (day) before `to`",
    },
    to: {
      type: "string",
      format: "date-time",
      description: "End of the period (widened to its UTC bucket); default: now",
    },
    bucket: {
      type: "string",
      enum: [...STATS_BUCKETS],
      description:
        "One point per UTC hour (a period of at most 31 days) or day (at most 400 days); default hour",
    },
    by: {
      type: "string",
      enum: [...STATS_DIMENSIONS],
      description: "Also split the period by sender domain, category or tag",
    },
  },
} as const;

const count = { type: "integer" } as const;
const nullableMs = { type: ["integer", "null"] } as const;
const figureProperties = {
  sent: { ...count, description: "Handed over to the next hop: delivered, or bounced at the handover" },
  delivered: count,
  bounced: { ...count, description: "Bounces at the handover and bounces reported later" },
  complained: count,
  failed: {
    ...count,
    description: "Failed without leaving: key revoked, every recipient suppressed, retries exhausted",
  },
  deferred: { ...count, description: "Temporary failures, each retry counted" },
  deliveryRate: { type: ["number", "null"], description: "delivered / sent; null when nothing was sent" },
  latency: {
    type: "object",
    additionalProperties: false,
    required: ["p50Ms", "p99Ms"],
    description: "Accept (or scheduled time) to delivery, from a histogram; null when nothing was delivered",
    properties: { p50Ms: nullableMs, p99Ms: nullableMs },
  },
} as const;
const figureRequired = Object.keys(figureProperties) as (keyof typeof figureProperties)[];
const figures = {
  type: "object",
  additionalProperties: false,
  required: figureRequired,
  properties: figureProperties,
} as const;

export const statsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["from", "to", "bucket", "by", "totals", "series", "groups"],
  properties: {
    from: timestamp,
    to: timestamp,
    bucket: { type: "string", enum: [...STATS_BUCKETS] },
    by: { type: ["string", "null"], enum: [...STATS_DIMENSIONS, null] },
    totals: figures,
    series: {
      type: "array",
      description: "One point per bucket of the period, oldest first, empty ones included",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["start", ...figureRequired],
        properties: { start: timestamp, ...figureProperties },
      },
    },
    groups: {
      type: "array",
      description:
        "With `by`: each domain, category or tag (`name:value`) with mail in the period, most sent first (50 at most)",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["value", ...figureRequired],
        properties: { value: { type: "string" }, ...figureProperties },
      },
    },
  },
} as const;
