/**
 * JSON schemas shared by several routes. Each bounds what a column or a walk over the value can take, so
 * that out-of-range input fails validation (400) and never reaches Postgres or a recursive function.
 */

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
