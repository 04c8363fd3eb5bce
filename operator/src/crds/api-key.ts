import {
  ageColumn,
  type CrdDefinition,
  conditionsSchema,
  nameRoomFor,
  observedGenerationSchema,
  readyColumn,
  readyReasonColumn,
  reclaimPolicySchema,
  secretNameSchema,
} from "./common.ts";
import type { FromSchema, SchemaProps } from "./schema-types.ts";

/** The scopes of spec/interface-spec.md's scope table. */
export const API_KEY_SCOPES = ["send", "domains", "templates", "webhooks", "audit", "keys"] as const;
/** `sandbox`: the key's mail is captured into its namespace's inbox, never delivered (issue 30, ADR 0047). */
export const API_KEY_MODES = ["live", "sandbox"] as const;
/** Key lifetimes; fixed at creation (DESIGN.md §3). */
export const API_KEY_EXPIRIES = ["30d", "90d", "365d", "never"] as const;

const spec = {
  type: "object",
  required: ["scopes"],
  properties: {
    scopes: {
      type: "array",
      description: "What the key may do. Immutable: a key's power never changes after it is issued.",
      minItems: 1,
      maxItems: API_KEY_SCOPES.length,
      items: { type: "string", enum: API_KEY_SCOPES },
      "x-kubernetes-list-type": "set",
      "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "scopes are immutable" }],
    },
    expiresIn: {
      type: "string",
      description: "Lifetime from issue. Immutable.",
      enum: API_KEY_EXPIRIES,
      default: "never",
      "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "expiresIn is immutable" }],
    },
    mode: {
      type: "string",
      description:
        "live: mail is delivered. sandbox: mail is accepted, signed, logged and evented as in production, " +
        "then captured into the namespace's inbox (GET /v1/dev-inbox/messages) instead of leaving. Immutable.",
      enum: API_KEY_MODES,
      default: "live",
      "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "mode is immutable" }],
    },
    secretName: {
      ...secretNameSchema,
      description: "Secret receiving the key (data keys apiKey and keyId). Defaults to <name>-api-key.",
    },
    reclaimPolicy: reclaimPolicySchema,
  },
} as const satisfies SchemaProps;

const status = {
  type: "object",
  properties: {
    keyId: { type: "string", description: "Public key id, safe to log.", pattern: "^[0-9A-Za-z]{12}$" },
    expiresAt: { type: "string", format: "date-time" },
    lastUsedAt: { type: "string", format: "date-time" },
    observedGeneration: observedGenerationSchema,
    conditions: conditionsSchema,
  },
} as const satisfies SchemaProps;

/** ApiKey: an API key whose secret the operator writes to a Secret, never to status. */
export const apiKeyCrd: CrdDefinition = {
  kind: "ApiKey",
  plural: "apikeys",
  singular: "apikey",
  shortNames: ["mrkey"],
  description: "An API key for the Mailroom HTTP API. The full key is written to a Secret, never to status.",
  spec,
  status,
  printerColumns: [
    readyColumn,
    { name: "Key ID", type: "string", jsonPath: ".status.keyId" },
    { name: "Expires", type: "date", jsonPath: ".status.expiresAt", priority: 1 },
    readyReasonColumn,
    ageColumn,
  ],
  maxNameLength: nameRoomFor("-api-key"),
};

/** ApiKey spec as read from the API server. */
export type ApiKeySpec = FromSchema<typeof spec>;
/** ApiKey status. */
export type ApiKeyStatus = FromSchema<typeof status>;
