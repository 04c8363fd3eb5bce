/** JSON schemas of the suppression routes: they validate, serialise and document (OpenAPI) at once. */
import { pageLimitSchema, pageSchema, timestamp } from "../../../schemas.ts";

export const suppressionSchema = {
  type: "object",
  additionalProperties: false,
  required: ["address", "reason", "detail", "sourceEmailId", "createdAt"],
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
    createdAt: { ...timestamp, description: "Since when the address is suppressed" },
  },
} as const;

export const suppressionListSchema = pageSchema(suppressionSchema, "address");

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
    limit: pageLimitSchema(20),
    after: { type: "string", maxLength: 320, description: "Cursor: the last address of the previous page" },
  },
} as const;

export const addressParamsSchema = {
  type: "object",
  required: ["address"],
  properties: { address: { type: "string", maxLength: 320, description: "The address, URL-encoded" } },
} as const;
