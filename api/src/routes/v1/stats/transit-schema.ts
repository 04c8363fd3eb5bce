import { DEFERRAL_REASONS } from "@mailroom/core/transit";
import { nullableString, nullableTimestamp, timestamp } from "../../../schemas.ts";

/** JSON schemas of `GET /v1/stats/transit`: they validate, serialise and document (OpenAPI) at once. */
export const transitQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    from: {
      type: "string",
      format: "date-time",
      description: "Start of the period (widened to its UTC hour); default: 24 hours before `to`",
    },
    to: {
      type: "string",
      format: "date-time",
      description: "End of the period (widened to its UTC hour; at most 31 days after `from`); default: now",
    },
  },
} as const;

const count = { type: "integer" } as const;

const shapingState = {
  type: ["object", "null"],
  additionalProperties: false,
  required: [
    "backedOff",
    "pausedUntil",
    "level",
    "concurrency",
    "ratePerMinute",
    "inFlight",
    "lastReply",
    "updatedAt",
    "workers",
    "workersBackedOff",
  ],
  description:
    "The destination's shaping now, as the worker that published it last holds it (workers that have not " +
    "published for 30 s are ignored); null when no running worker holds it: it is at its full limits",
  properties: {
    backedOff: {
      type: "boolean",
      description: "Below its configured limits after a rate-limit reply, or paused",
    },
    pausedUntil: { ...nullableTimestamp, description: "Not tried until then (a backoff's pause)" },
    level: {
      type: "number",
      description: "The share of the configured concurrency and rate in force (1: all)",
    },
    concurrency: { ...count, description: "Sessions it may have open at once, per worker" },
    ratePerMinute: { type: "number", description: "Transactions started per minute, per worker; 0: no rate" },
    inFlight: { ...count, description: "Transactions under way on that worker" },
    lastReply: { ...nullableString, description: "The rate-limit reply of its last backoff" },
    updatedAt: timestamp,
    workers: { ...count, description: "Workers that published it recently" },
    workersBackedOff: { ...count, description: "Of those, the ones holding it backed off" },
  },
} as const;

const domain = {
  type: "object",
  additionalProperties: false,
  required: [
    "domain",
    "delivered",
    "bounced",
    "deferred",
    "deferrals",
    "sessions",
    "lastFailure",
    "destinations",
  ],
  properties: {
    domain: { type: "string", description: "The recipient domain (A-labels)" },
    delivered: { ...count, description: "Recipients the receiver accepted" },
    bounced: { ...count, description: "Recipients the receiver refused for good at the handover" },
    deferred: { ...count, description: "Recipients deferred, each attempt counted" },
    deferrals: {
      type: "array",
      description:
        "Deferrals by reason: `shaped` (not tried: the destination was backed off or busy), `rate_limited` " +
        "(the receiver asked us to slow down), `receiver_4xx` (another 4xx reply), `tls_policy` (the " +
        "session did not meet an enforced MTA-STS, DANE or REQUIRETLS policy), `connection` (no reply)",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["reason", "count"],
        properties: { reason: { type: "string", enum: [...DEFERRAL_REASONS] }, count },
      },
    },
    sessions: {
      type: "array",
      description: "TLS sessions by mechanism and result (`success`, or an RFC 8460 failure type)",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["mechanism", "result", "count"],
        properties: {
          mechanism: { type: "string", enum: ["mta-sts", "dane", "opportunistic", "relay"] },
          result: { type: "string" },
          count,
        },
      },
    },
    lastFailure: {
      type: ["object", "null"],
      additionalProperties: false,
      required: ["at", "reason"],
      description: "The period's latest TLS failure, deferral or bounce; null when there was none",
      properties: { at: timestamp, reason: { type: "string" } },
    },
    destinations: {
      type: "array",
      description:
        "Where the mail went, for shaping: a provider group (`group:gmail`) or an MX host (`host:…`)",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["destination", "name", "state"],
        properties: { destination: { type: "string" }, name: { type: "string" }, state: shapingState },
      },
    },
  },
} as const;

export const transitSchema = {
  type: "object",
  additionalProperties: false,
  required: ["from", "to", "domains"],
  properties: {
    from: timestamp,
    to: timestamp,
    domains: {
      type: "array",
      description:
        "Each recipient domain the account's mail went to in the period, busiest first (100 at most)",
      items: domain,
    },
  },
} as const;
