/**
 * JSON schemas and limits shared by several routes, and the type provider that makes each route's schema its
 * TypeScript type (fastify/demo's habit: the schema validates, serialises, documents and types at once).
 * Each bound keeps out-of-range input at validation (400), away from Postgres and recursive functions.
 */
import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";

/**
 * Route types from route schemas (json-schema-to-ts). Requests are typed as validated; responses as what the
 * serialiser accepts, where a `date-time` string may be given as a `Date` (fast-json-stringify writes it
 * in ISO 8601), so handlers return core records as they are.
 */
export type ApiTypeProvider = JsonSchemaToTsProvider<{
  SerializerSchemaOptions: {
    deserialize: [
      { pattern: { type: "string"; format: "date-time" }; output: Date | string },
      { pattern: { type: readonly ["string", "null"]; format: "date-time" }; output: Date | string | null },
    ];
  };
}>;

/** Postgres `integer`: a larger number would fail in SQL (a 500), not in validation. */
const PG_INTEGER_MAX = 2_147_483_647;

/** A template version number. */
export const versionNumberSchema = {
  type: "integer",
  minimum: 1,
  maximum: PG_INTEGER_MAX,
} as const;

/** How deep a request body may nest arrays and objects (template variables included). */
export const MAX_BODY_DEPTH = 32;

/** The spec's error body. */
export const errorSchema = {
  type: "object",
  required: ["error", "message"],
  properties: { error: { type: "string" }, message: { type: "string" } },
} as const;

/** Every route's error answers: the spec's `{ error, message }`. */
export const errorResponses = { "4xx": errorSchema, "5xx": errorSchema } as const;

/** A 204's body: none (Fastify writes no body for a 204, whatever the handler sends). */
export const noContentResponses = {
  204: { type: "null", description: "Done; no body" },
  ...errorResponses,
} as const;

/** An instant; routes may answer a `Date`, which the serialiser writes as RFC 3339 (UTC). */
export const timestamp = { type: "string", format: "date-time" } as const;
export const nullableTimestamp = { type: ["string", "null"], format: "date-time" } as const;
export const nullableString = { type: ["string", "null"] } as const;

/** `limit` of a paged list: 1 to 100 (the query string's value coerced, see app.ts). */
export const pageLimitSchema = (defaultLimit: number) =>
  ({
    type: "integer",
    minimum: 1,
    maximum: 100,
    description: `an integer from 1 to 100 (default ${defaultLimit})`,
  }) as const;

/** A page of a list: its items and whether another page follows (the cursor is the last item's `cursor`). */
export const pageSchema = <const Items, const Cursor extends string>(items: Items, cursor: Cursor) =>
  ({
    type: "object",
    additionalProperties: false,
    required: ["data", "hasMore"],
    properties: {
      data: { type: "array", items },
      hasMore: {
        type: "boolean",
        description: `Another page follows: pass the last ${cursor} as \`after\``,
      },
    },
  }) as const;

/** Path parameters that are ids: bounded, so a long one is a 400 rather than a query. */
export const idParamsSchema = <const D extends string>(description: D) =>
  ({
    type: "object",
    required: ["id"],
    properties: { id: { type: "string", maxLength: 64, description } },
  }) as const;
