import { MAX_HEADER_VALUE_LENGTH, MAX_SUBJECT_LENGTH } from "@mailroom/core/emails";
import { MAX_BODY_DEPTH, versionNumberSchema } from "../../../schemas.ts";

/** JSON schemas of the send routes: they validate, serialise and document (OpenAPI) at once. */
const address = { type: "string", minLength: 3, maxLength: 512 } as const;
const addressList = (description: string) =>
  ({
    description,
    anyOf: [address, { type: "array", minItems: 1, maxItems: 50, items: address }],
  }) as const;

export const sendEmailSchema = {
  type: "object",
  additionalProperties: false,
  required: ["from", "to"],
  properties: {
    from: { ...address, description: "`Display Name <address>` or an address; IDN domains accepted" },
    to: addressList("One recipient or an array; at most 50 recipients across to, cc and bcc"),
    cc: addressList("Carbon-copy recipients"),
    bcc: addressList("Blind carbon-copy recipients (never shown in the message)"),
    replyTo: addressList("Reply-To addresses"),
    subject: {
      type: "string",
      maxLength: MAX_SUBJECT_LENGTH,
      description: "Required unless a template is given",
    },
    html: { type: "string", description: "HTML body; give html, text or both" },
    text: { type: "string", description: "Plain-text body" },
    category: { type: "string", minLength: 1, maxLength: 64, description: "Default `transactional`" },
    headers: {
      type: "object",
      description: "Custom headers; CR/LF and headers Mailroom sets itself are refused",
      maxProperties: 50,
      additionalProperties: { type: "string", maxLength: MAX_HEADER_VALUE_LENGTH },
    },
    attachments: {
      type: "array",
      maxItems: 20,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["filename", "content"],
        properties: {
          filename: { type: "string", minLength: 1, maxLength: 255 },
          content: { type: "string", description: "Base64 (RFC 4648), no line breaks" },
          contentType: { type: "string", maxLength: 255, description: "Default application/octet-stream" },
          contentId: { type: "string", maxLength: 200, description: "For inline images: `cid:<contentId>`" },
        },
      },
    },
    tags: {
      type: "array",
      maxItems: 20,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "value"],
        properties: { name: { type: "string" }, value: { type: "string" } },
      },
    },
    template: {
      type: "object",
      additionalProperties: false,
      description: "A saved template to render (instead of subject/html/text); give id or name",
      properties: {
        id: { type: "string" },
        name: { type: "string" },
        version: versionNumberSchema,
        variables: {
          type: "object",
          additionalProperties: true,
          description: `Values the template reads; the whole body nests at most ${MAX_BODY_DEPTH} levels deep`,
        },
      },
    },
    idempotencyKey: { type: "string", description: "Makes a retry safe; also accepted as Idempotency-Key" },
    scheduledAt: { type: "string", description: "RFC 3339 time, up to 30 days ahead" },
    requireTls: {
      type: "boolean",
      description:
        "REQUIRETLS (RFC 8689): deliver only over TLS with a verified certificate (MTA-STS, or one valid for the MX or relay name); otherwise the email is deferred and then fails with that reason. Default false",
    },
  },
} as const;

/** The request headers POST /v1/send reads: validated, typed and documented from here. */
export const sendHeadersSchema = {
  type: "object",
  properties: {
    "idempotency-key": {
      type: "string",
      description: "Makes a retry safe, as the body's idempotencyKey (give one or the other, or both equal)",
    },
  },
} as const;

/** The request headers POST /v1/send/batch reads (an Idempotency-Key is refused: one per item instead). */
export const batchHeadersSchema = {
  type: "object",
  properties: {
    "x-batch-validation": {
      type: "string",
      enum: ["strict", "permissive"],
      description:
        "strict (default): one invalid item refuses the whole batch; permissive: valid items are sent and each invalid one reported in `data`",
    },
  },
} as const;

export const sendResultSchema = {
  type: "object",
  required: ["status", "messageId"],
  properties: {
    status: { type: "string", enum: ["queued", "duplicate", "scheduled"] },
    messageId: { type: "string" },
  },
} as const;

export const batchBodySchema = {
  type: "array",
  minItems: 1,
  maxItems: 100,
  items: { type: "object" },
} as const;

export const batchResultSchema = {
  type: "object",
  required: ["data"],
  properties: {
    data: {
      type: "array",
      items: {
        type: "object",
        properties: {
          index: { type: "integer" },
          status: { type: "string", enum: ["queued", "duplicate", "scheduled", "error"] },
          messageId: { type: "string" },
          error: { type: "string" },
          message: { type: "string" },
        },
      },
    },
  },
} as const;
