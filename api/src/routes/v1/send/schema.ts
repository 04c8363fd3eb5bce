/** JSON schemas of the send routes: they validate, serialise and document (OpenAPI) at once. */
export const sendBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["from", "to", "subject"],
  properties: {
    from: {
      type: "string",
      minLength: 3,
      maxLength: 512,
      description: "`Display Name <address>` or an address",
    },
    to: {
      description: "One recipient, or an array of up to 50",
      oneOf: [
        { type: "string", minLength: 3, maxLength: 512 },
        { type: "array", minItems: 1, maxItems: 50, items: { type: "string", minLength: 3, maxLength: 512 } },
      ],
    },
    subject: { type: "string", maxLength: 998 },
    html: { type: "string" },
    text: { type: "string" },
    category: { type: "string", minLength: 1, maxLength: 64, default: "transactional" },
    idempotencyKey: { type: "string", description: "Makes a retry safe; also accepted as Idempotency-Key" },
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

export const errorSchema = {
  type: "object",
  required: ["error", "message"],
  properties: { error: { type: "string" }, message: { type: "string" } },
} as const;
