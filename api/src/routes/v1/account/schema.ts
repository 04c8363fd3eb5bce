import { nullableString, nullableTimestamp, timestamp } from "../../../schemas.ts";

/** JSON schemas of the account routes: they validate, serialise and document (OpenAPI) at once. */
const nullableCount = { type: ["integer", "null"] } as const;
const nullableRate = { type: ["number", "null"] } as const;

const paused = {
  type: ["object", "null"],
  required: ["at", "by", "reason"],
  properties: { at: timestamp, by: nullableString, reason: nullableString },
  description: "Who paused the account's sending, when and why; null while it is active",
} as const;

const resumed = {
  type: ["object", "null"],
  required: ["at", "by"],
  properties: { at: timestamp, by: nullableString },
  description: "The last resume: who and when",
} as const;

export const accountSchema = {
  type: "object",
  additionalProperties: false,
  required: ["account", "sendingStatus", "paused", "resumed", "policy", "limits", "usage", "reputation"],
  properties: {
    account: { type: "string" },
    sendingStatus: {
      type: "string",
      enum: ["active", "paused"],
      description: "`paused`: new sends answer 403 `sending_paused`; accepted mail is held until a resume",
    },
    paused,
    resumed,
    policy: { ...nullableString, description: "The AccountPolicy (`namespace/name`) that sets the limits" },
    limits: {
      type: "object",
      required: ["requestsPerSecond", "emailsPerSecond", "emailsPerDay", "batchSize", "allowedCategories"],
      properties: {
        requestsPerSecond: { ...nullableCount, description: "API requests per second (429 over it)" },
        emailsPerSecond: { ...nullableCount, description: "Emails per second, both doors (429 over it)" },
        emailsPerDay: { ...nullableCount, description: "Emails per UTC day (429 `quota_exceeded` over it)" },
        batchSize: { type: "integer", description: "Emails per batch request" },
        allowedCategories: { type: ["array", "null"], items: { type: "string" } },
        retentionDays: nullableCount,
      },
    },
    usage: {
      type: "object",
      required: ["emailsThisSecond", "emailsToday", "dayResetsAt"],
      description: "Emails counted against the quotas (counted only while the account has a quota)",
      properties: {
        emailsThisSecond: { type: "integer" },
        emailsToday: { type: "integer" },
        dayResetsAt: timestamp,
      },
    },
    reputation: {
      type: "object",
      required: ["thresholds", "rates", "computedAt"],
      properties: {
        thresholds: {
          type: "object",
          additionalProperties: false,
          required: [
            "minimumVolume",
            "warnBounceRate",
            "pauseBounceRate",
            "warnComplaintRate",
            "pauseComplaintRate",
          ],
          properties: {
            minimumVolume: { type: "integer" },
            warnBounceRate: { type: "number" },
            pauseBounceRate: { type: "number" },
            warnComplaintRate: { type: "number" },
            pauseComplaintRate: { type: "number" },
          },
        },
        rates: {
          type: "array",
          description: "Per window (24 h, 168 h): the whole account (`domain` empty) and each sending domain",
          items: {
            type: "object",
            required: ["domain", "windowHours", "sent", "bounced", "complained", "level"],
            properties: {
              domain: { type: "string" },
              windowHours: { type: "integer", description: "24 or 168" },
              sent: { type: "integer" },
              bounced: { type: "integer" },
              complained: { type: "integer" },
              bounceRate: nullableRate,
              complaintRate: nullableRate,
              level: { type: "string", enum: ["ok", "low_volume", "warn", "pause"] },
            },
          },
        },
        computedAt: nullableTimestamp,
      },
    },
  },
} as const;

export const resumeResultSchema = {
  type: "object",
  additionalProperties: false,
  required: ["account", "sendingStatus", "released"],
  properties: {
    account: { type: "string" },
    sendingStatus: { type: "string", enum: ["active"] },
    released: { type: "integer", description: "Held emails given back to delivery" },
  },
} as const;
