/** JSON schemas of the suppression routes: they validate, serialise and document (OpenAPI) at once. */

export const suppressionSchema = {
  type: "object",
  required: ["address", "reason", "createdAt"],
  properties: {
    address: { type: "string", description: "Lower-cased recipient address" },
    reason: {
      type: "string",
      enum: ["hard_bounce", "complaint", "manual"],
      description:
        "Why the address is suppressed: a permanent bounce (at handover or reported later), a spam complaint " +
        "(ARF feedback report), or added by hand",
    },
    detail: {
      type: ["string", "null"],
      description:
        "For a bounce, the receiver's reply; for a complaint, its feedback type; for manual, the note given",
    },
    sourceEmailId: {
      type: ["string", "null"],
      description: "The email whose bounce or complaint listed the address",
    },
    createdAt: { type: "string", format: "date-time", description: "Since when the address is suppressed" },
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

export const addSuppressionBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["address"],
  properties: {
    address: { type: "string", maxLength: 320, description: "The address to stop sending to" },
    detail: { type: "string", maxLength: 1000, description: "A note saying why, kept with the entry" },
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
