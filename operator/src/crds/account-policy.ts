import {
  ageColumn,
  type CrdDefinition,
  conditionsSchema,
  nameRoomFor,
  observedGenerationSchema,
  readyColumn,
  readyReasonColumn,
} from "./common.ts";
import type { FromSchema, SchemaProps } from "./schema-types.ts";

const rate = { type: "number", minimum: 0, maximum: 1 } as const;

const spec = {
  type: "object",
  properties: {
    limits: {
      type: "object",
      description: "Quotas of the namespace's account, both doors together; absent: no limit.",
      properties: {
        emailsPerSecond: { type: "integer", minimum: 1, description: "Over it: 429 rate_limit_exceeded." },
        emailsPerDay: {
          type: "integer",
          minimum: 1,
          description: "Per UTC day; over it: 429 quota_exceeded.",
        },
        batchSize: { type: "integer", minimum: 1, maximum: 100, description: "Emails per batch request." },
      },
    },
    logRetentionDays: {
      type: "integer",
      minimum: 0,
      maximum: 36500,
      description:
        "Days the account's email log (and its timeline and captured mail) is kept; 0: forever; absent: the installation's setting.",
    },
    categories: {
      type: "array",
      maxItems: 100,
      items: { type: "string", minLength: 1, maxLength: 128 },
      description: "Categories the account may send with; absent: any.",
    },
    reputation: {
      type: "object",
      description: "The reputation guard's lines (defaults: 500 sent, warn 2 % / 0.1 %, pause 5 % / 0.3 %).",
      properties: {
        minimumVolume: { type: "integer", minimum: 1 },
        warnBounceRate: rate,
        pauseBounceRate: rate,
        warnComplaintRate: rate,
        pauseComplaintRate: rate,
      },
    },
  },
} as const satisfies SchemaProps;

const status = {
  type: "object",
  properties: {
    sendingStatus: { type: "string", enum: ["active", "paused"] },
    pausedReason: { type: "string" },
    emailsToday: { type: "integer", description: "Emails counted against emailsPerDay today (UTC)." },
    observedGeneration: observedGenerationSchema,
    conditions: conditionsSchema,
  },
} as const satisfies SchemaProps;

/** AccountPolicy: the namespace's account's quotas and reputation lines, one per namespace (issue 31). */
export const accountPolicyCrd: CrdDefinition = {
  kind: "AccountPolicy",
  plural: "accountpolicies",
  singular: "accountpolicy",
  shortNames: ["mrpolicy"],
  description:
    "The namespace's account policy: quotas, categories and reputation thresholds. One per " +
    "namespace; SendingPaused says whether the reputation guard (or someone) paused the account.",
  spec,
  status,
  printerColumns: [
    readyColumn,
    { name: "Sending", type: "string", jsonPath: ".status.sendingStatus" },
    { name: "Today", type: "integer", jsonPath: ".status.emailsToday" },
    readyReasonColumn,
    ageColumn,
  ],
  maxNameLength: nameRoomFor(""),
};

/** AccountPolicy spec as read from the API server. */
export type AccountPolicySpec = FromSchema<typeof spec>;
/** AccountPolicy status. */
export type AccountPolicyStatus = FromSchema<typeof status>;
