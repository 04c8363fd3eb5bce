/** JSON schemas of the suppression routes: they validate, serialise and document (OpenAPI) at once. */

export const suppressionSchema = {
  type: "object",
  required: ["address", "reason", "createdAt"],
  properties: {
    address: { type: "string", description: "Lower-cased recipient address" },
    reason: { type: "string", enum: ["hard_bounce", "manual"] },
    detail: { type: ["string", "null"], description: "For a hard bounce, the receiver's SMTP reply" },
    sourceEmailId: { type: ["string", "null"], description: "The email whose bounce listed the address" },
    createdAt: { type: "string", format: "date-time" },
  },
} as const;

export const suppressionListSchema = {
  type: "object",
  required: ["data", "hasMore"],
  properties: {
    data: { type: "array", items: suppressionSchema },
    hasMore: { type: "boolean", description: "Another page follows: pass the last address as `after`" },
  },
} as const;

export const listQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "string", pattern: "^(100|[1-9][0-9]?)$", description: "1-100, default 20" },
    after: { type: "string", maxLength: 320, description: "Cursor: the last address of the previous page" },
  },
} as const;

export const addressParamsSchema = {
  type: "object",
  required: ["address"],
  properties: { address: { type: "string", maxLength: 320, description: "The address, URL-encoded" } },
} as const;
