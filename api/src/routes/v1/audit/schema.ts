import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS } from "@mailroom/core/audit";
import { nullableString, pageLimitSchema, pageSchema, timestamp } from "../../../schemas.ts";

/** One entry of the audit trail: who, when, what, to what, from where. */
export const auditEventSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id", "at", "actor", "action", "target", "detail", "origin"],
  properties: {
    id: { type: "string", description: "The entry's id (UUIDv7): the cursor" },
    at: timestamp,
    actor: {
      type: "object",
      additionalProperties: false,
      required: ["kind", "id", "label", "keyId"],
      description:
        "Who: an API key (id: key id, label: its name), a person signed in (id: their subject, label: their " +
        "email, keyId: the key they acted with), a custom resource (id: Kind/namespace/name), the SMTP door " +
        "(id: the key id a login tried), the installation's CLI or Mailroom itself",
      properties: {
        kind: { type: "string", enum: [...AUDIT_ACTOR_KINDS] },
        id: { type: "string" },
        label: nullableString,
        keyId: { ...nullableString, description: "A person's change: the key they acted with; else null" },
      },
    },
    action: { type: "string", description: `One of ${AUDIT_ACTIONS.join(", ")}` },
    target: {
      ...nullableString,
      description: "What it was done to: a key id, domain, template or endpoint id, address",
    },
    detail: { type: "object", additionalProperties: true, description: "What else is known: never a secret" },
    origin: {
      type: "object",
      additionalProperties: false,
      required: ["ip", "userAgent"],
      description: "From where: the HTTP client's or SMTP peer's address, the HTTP user agent",
      properties: { ip: nullableString, userAgent: nullableString },
    },
  },
} as const;

export const auditActionsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["data"],
  properties: {
    data: {
      type: "array",
      items: { type: "string", enum: [...AUDIT_ACTIONS] },
      description: "Every action the trail records, as the list's `action` filter takes them",
    },
  },
} as const;

export const auditPageSchema = pageSchema(auditEventSchema, "id");

export const auditQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: pageLimitSchema(50),
    after: { type: "string", format: "uuid", description: "Cursor: the last id of the previous page" },
    action: { type: "string", enum: [...AUDIT_ACTIONS] },
    actor: {
      type: "string",
      maxLength: 300,
      description:
        "The actor's id: a key id (a person's key's too), a person's subject, Kind/namespace/name, …",
    },
    actorKind: { type: "string", enum: [...AUDIT_ACTOR_KINDS] },
    since: { type: "string", format: "date-time", description: "At or after" },
    until: { type: "string", format: "date-time", description: "Before" },
  },
} as const;
