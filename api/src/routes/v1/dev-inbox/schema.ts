/** JSON schemas of the dev-inbox routes: they validate, serialise and document (OpenAPI) at once. */
import { pageLimitSchema, timestamp } from "../../../schemas.ts";

const summaryProperties = {
  id: { type: "string", description: "The captured message's id" },
  emailId: { type: "string", format: "uuid", description: "The email (log entry) it was captured from" },
  envelopeFrom: { type: "string", description: "The SMTP envelope sender (MAIL FROM) it would have had" },
  recipients: {
    type: "array",
    items: { type: "string" },
    description: "The SMTP envelope recipients (RCPT TO) it would have had, Bcc included",
  },
  from: { type: "string" },
  to: { type: "array", items: { type: "string" }, description: "To and Cc, as the headers name them" },
  subject: { type: "string" },
  date: { type: ["string", "null"], description: "The Date header, when it parses" },
  receivedAt: timestamp,
  size: { type: "integer", description: "Bytes, as received" },
} as const;

const inboxSummarySchema = {
  type: "object",
  additionalProperties: false,
  required: [
    "id",
    "emailId",
    "envelopeFrom",
    "recipients",
    "from",
    "to",
    "subject",
    "date",
    "receivedAt",
    "size",
  ],
  properties: summaryProperties,
} as const;

export const inboxListSchema = {
  type: "object",
  additionalProperties: false,
  required: ["data"],
  properties: { data: { type: "array", items: inboxSummarySchema } },
} as const;

export const inboxMessageSchema = {
  type: "object",
  additionalProperties: false,
  required: [...inboxSummarySchema.required, "html", "text", "headers", "attachments"],
  properties: {
    ...summaryProperties,
    html: { type: ["string", "null"] },
    text: { type: ["string", "null"] },
    headers: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "value"],
        properties: { name: { type: "string" }, value: { type: "string" } },
      },
    },
    attachments: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["index", "filename", "contentType", "contentId", "size"],
        properties: {
          index: { type: "integer" },
          filename: { type: "string" },
          contentType: { type: "string" },
          contentId: { type: ["string", "null"], description: "Named by `cid:` URLs in the HTML" },
          size: { type: "integer" },
        },
      },
    },
  },
} as const;

const filterProperties = {
  to: { type: "string", minLength: 1, maxLength: 320, description: "An envelope recipient (any case)" },
  subject: {
    type: "string",
    minLength: 1,
    maxLength: 998,
    description: "Text the subject contains (any case)",
  },
} as const;

export const filterQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: filterProperties,
} as const;

export const listQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    ...filterProperties,
    limit: pageLimitSchema(50),
    wait: {
      type: "integer",
      minimum: 0,
      maximum: 30,
      description: "Seconds to wait for a match (long poll), 0 to 30 (default 0: answer at once)",
    },
  },
} as const;

const id = {
  type: "string",
  pattern: "^[0-9A-Za-z-]{1,80}$",
  description: "A captured message's id",
} as const;

export const messageParamsSchema = { type: "object", required: ["id"], properties: { id } } as const;

export const attachmentParamsSchema = {
  type: "object",
  required: ["id", "index"],
  properties: {
    id,
    index: { type: "string", pattern: "^[0-9]{1,3}$", description: "The attachment's index" },
  },
} as const;
