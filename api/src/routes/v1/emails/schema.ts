import { EMAIL_STATUSES } from "@mailroom/core/emails";
import {
  idParamsSchema as idParams,
  nullableString,
  nullableTimestamp,
  pageLimitSchema,
  pageSchema,
  timestamp,
} from "../../../schemas.ts";

const stringList = { type: "array", items: { type: "string" } } as const;

const summaryProperties = {
  id: { type: "string" },
  status: { type: "string", enum: [...EMAIL_STATUSES] },
  source: {
    type: "string",
    enum: ["api", "smtp"],
    description: "The door the email came through: the HTTP API or SMTP submission (ports 587/465)",
  },
  sandbox: {
    type: "boolean",
    description: "Captured in the account's dev inbox instead of sent: a sandbox key's or account's email",
  },
  simulated: {
    type: "boolean",
    description: "Every recipient is a mailbox simulator address (MAILROOM_SIMULATOR_DOMAIN): nothing left",
  },
  failureReason: nullableString,
  from: { type: "string" },
  to: stringList,
  cc: stringList,
  bcc: stringList,
  replyTo: stringList,
  subject: { type: "string" },
  category: { type: "string" },
  tags: {
    type: "array",
    items: {
      type: "object",
      additionalProperties: false,
      required: ["name", "value"],
      properties: { name: { type: "string" }, value: { type: "string" } },
    },
  },
  scheduledAt: nullableTimestamp,
  attempts: { type: "integer" },
  lastSmtpResponse: nullableString,
  createdAt: timestamp,
  updatedAt: timestamp,
} as const;
const summaryRequired = Object.keys(summaryProperties) as (keyof typeof summaryProperties)[];

export const emailSummarySchema = {
  type: "object",
  additionalProperties: false,
  required: summaryRequired,
  properties: summaryProperties,
} as const;

export const emailPageSchema = pageSchema(emailSummarySchema, "id");

export const emailDetailSchema = {
  type: "object",
  additionalProperties: false,
  required: [
    ...summaryRequired,
    "messageIdHeader",
    "html",
    "text",
    "headers",
    "recipients",
    "attachments",
    "events",
  ],
  properties: {
    ...summaryProperties,
    messageIdHeader: { type: "string" },
    html: nullableString,
    text: nullableString,
    headers: { type: "object", additionalProperties: { type: "string" } },
    recipients: {
      type: "array",
      description:
        "Each recipient's outcome so far, with the next hop's SMTP reply; empty before the first attempt",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["address", "status", "code", "response"],
        properties: {
          address: { type: "string" },
          status: { type: "string", enum: ["accepted", "temporary", "permanent"] },
          code: { type: ["integer", "null"] },
          response: { type: ["string", "null"] },
        },
      },
    },
    attachments: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["filename", "contentType", "contentId", "size"],
        properties: {
          filename: { type: "string" },
          contentType: { type: "string" },
          contentId: nullableString,
          size: { type: "integer" },
        },
      },
    },
    events: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["type", "at", "detail"],
        properties: {
          type: { type: "string" },
          at: timestamp,
          detail: { type: "object", additionalProperties: true },
        },
      },
    },
  },
} as const;

export const listQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: pageLimitSchema(20),
    after: { type: "string", format: "uuid", description: "Cursor: the last id of the previous page" },
    status: { type: "string", enum: [...EMAIL_STATUSES] },
    to: { type: "string" },
    from: { type: "string" },
    category: { type: "string" },
    tag: { type: "string", pattern: "^[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$", description: "name:value" },
    since: { type: "string", format: "date-time", description: "Created at or after" },
    until: { type: "string", format: "date-time", description: "Created before" },
    q: {
      type: "string",
      maxLength: 200,
      description:
        "Search, every term (at most 4) must match: `<…>` is a Message-ID; a term with `@` starts the sender's " +
        "or a recipient's (to, cc or bcc) address; `name:value` is a tag; any other starts a word of the subject " +
        "or of the sender's or a recipient's (to, cc or bcc) address",
    },
  },
} as const;

export const idParamsSchema = idParams("The email's id");

export const rescheduleBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["scheduledAt"],
  properties: { scheduledAt: { type: "string", description: "RFC 3339, up to 30 days ahead" } },
} as const;
