import { EXPIRY_CHOICES, KEY_MODES, MAX_KEY_NAME, SCOPES } from "@mailroom/core/keys";
import {
  nullableString,
  nullableTimestamp,
  pageLimitSchema,
  pageSchema,
  timestamp,
} from "../../../schemas.ts";

/** JSON schemas of /v1/keys (scope `keys`, ADR 0069): they validate, serialise and document at once. */

const KEY_STATES = ["active", "revoked", "expired"] as const;

const keyProperties = {
  keyId: { type: "string", description: "The key's id: safe to log, names the key to revoke" },
  name: nullableString,
  scopes: { type: "array", items: { type: "string", enum: [...SCOPES] } },
  mode: {
    type: "string",
    enum: [...KEY_MODES],
    description: "`sandbox`: what the key sends is captured into the account's dev inbox, never delivered",
  },
  state: { type: "string", enum: [...KEY_STATES] },
  createdAt: timestamp,
  expiresAt: nullableTimestamp,
  lastUsedAt: { ...nullableTimestamp, description: "Refreshed about once an hour" },
  revokedAt: nullableTimestamp,
  managedBy: {
    type: "string",
    enum: ["cli", "api", "operator"],
    description: "Who made it: `mailroom keys`, the API (a person's sign-in included) or an ApiKey resource",
  },
  owner: {
    type: ["object", "null"],
    additionalProperties: false,
    required: ["issuer", "subject", "email"],
    description: "The person a sign-in minted the key for (ADR 0063); null for a machine's key",
    properties: { issuer: { type: "string" }, subject: { type: "string" }, email: nullableString },
  },
} as const;

const KEY_FIELDS = [
  "keyId",
  "name",
  "scopes",
  "mode",
  "state",
  "createdAt",
  "expiresAt",
  "lastUsedAt",
  "revokedAt",
  "managedBy",
  "owner",
] as const;

/** One key as listed: never its secret (not stored) nor the secret's hash. */
export const keySchema = {
  type: "object",
  additionalProperties: false,
  required: KEY_FIELDS,
  properties: keyProperties,
} as const;

export const keyPageSchema = pageSchema(keySchema, "keyId");

export const keysQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: pageLimitSchema(50),
    after: {
      type: "string",
      pattern: "^[0-9A-Za-z]{12}$",
      description: "Cursor: the last keyId of the previous page",
    },
    state: { type: "string", enum: [...KEY_STATES], description: "Only keys in this state" },
  },
} as const;

export const createKeyBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["scopes"],
  properties: {
    scopes: {
      type: "array",
      minItems: 1,
      maxItems: SCOPES.length,
      uniqueItems: true,
      items: { type: "string", enum: [...SCOPES] },
      description: "At most the calling key's own scopes",
    },
    expires: {
      type: "string",
      enum: [...EXPIRY_CHOICES],
      description: "Lifetime from now, fixed at creation: 30, 90 or 365 days, or `never` (the default)",
    },
    name: { type: ["string", "null"], maxLength: MAX_KEY_NAME, description: "A label to recognise it by" },
    mode: {
      type: "string",
      enum: [...KEY_MODES],
      description: "Default: the calling key's; a sandbox key makes only sandbox keys",
    },
  },
} as const;

export const createdKeySchema = {
  type: "object",
  additionalProperties: false,
  required: [...KEY_FIELDS, "key"],
  properties: {
    ...keyProperties,
    key: {
      type: "string",
      description: "The full key, `mrk_<keyId>_<secret>`: shown this once, never again",
    },
  },
} as const;

export const revokedKeySchema = {
  type: "object",
  additionalProperties: false,
  required: [...KEY_FIELDS, "failedEmails"],
  properties: {
    ...keyProperties,
    failedEmails: {
      type: "integer",
      description: "Emails of the key that had not left, now failed with `api_key_revoked`",
    },
  },
} as const;

export const keyParamsSchema = {
  type: "object",
  required: ["keyId"],
  properties: {
    // Strictly an id: a full key pasted into the path is refused here, never echoed back in a message.
    keyId: {
      type: "string",
      pattern: "^[0-9A-Za-z]{12}$",
      description: "The key's id: 12 letters and digits",
    },
  },
} as const;
