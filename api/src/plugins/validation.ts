import { AjvCompiler } from "@fastify/ajv-compiler";
import { findUnstorableString } from "@mailroom/core/text";
import type { ErrorObject } from "ajv";
import type { FastifySchemaCompiler, FastifyServerOptions } from "fastify";

type BuildValidator = NonNullable<
  NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]
>["buildValidator"];

// Request parts whose strings reach the database; headers cannot carry NUL (Node refuses it).
const CHECKED_PARTS = new Set(["body", "querystring", "params"]);

interface Validator {
  (data: unknown, context?: unknown): unknown;
  errors?: ErrorObject[] | null;
  schemaEnv?: unknown;
}

/** An Ajv-shaped error for a string Postgres cannot store: `errors.ts` words it like any schema failure. */
function storableError(path: (string | number)[], problem: string): ErrorObject {
  return {
    keyword: "storable",
    instancePath: path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join(""),
    schemaPath: "#/storable",
    params: {},
    message: problem,
  };
}

/**
 * Fastify's own validator compiler (Ajv, with the app's options) with one rule added where every route's
 * schema is compiled: no string of a body, query or path may hold NUL (U+0000) or a lone surrogate, at any
 * depth (template variables included), since Postgres refuses them in `text` and `jsonb` and the statement
 * would fail with a 500 (issue 26). The rule lives here once, not in each route's schema, so a route added
 * later is covered and the published OpenAPI document stays as the schemas say. The failure is a 400
 * `validation_error` naming the field, worded by `describeSchemaError`.
 */
export function storableStringsValidator(): BuildValidator {
  const buildAjv = coercingQueryValidator() as unknown as (
    ...args: unknown[]
  ) => FastifySchemaCompiler<unknown>;
  return ((externalSchemas: unknown, options: unknown) => {
    const compile = buildAjv(externalSchemas, options);
    return (definition: Parameters<FastifySchemaCompiler<unknown>>[0]) => {
      const validate = compile(definition) as unknown as Validator;
      if (!CHECKED_PARTS.has(definition.httpPart ?? "")) return validate;
      const checked: Validator = (data, context) => {
        const found = findUnstorableString(data);
        if (found) {
          checked.errors = [storableError(found.path, found.problem)];
          return false;
        }
        const valid = validate(data, context);
        checked.errors = validate.errors ?? null;
        return valid;
      };
      // Fastify passes the parent object only to validators that carry Ajv's schemaEnv (defaults at the root).
      if (validate.schemaEnv) checked.schemaEnv = validate.schemaEnv;
      return checked;
    };
  }) as unknown as BuildValidator;
}

/**
 * Validators that take a query string's and a path's values as the types their schemas declare (`?limit=5` is
 * the integer 5, as the published document says), while a JSON body is never coerced: `"5"` stays a string
 * there and fails an integer's schema.
 */
function coercingQueryValidator() {
  const strict = AjvCompiler();
  const coercing = AjvCompiler();
  return (schemas: Parameters<typeof strict>[0], ajv?: { customOptions?: object }) => {
    const bodies = strict(schemas, ajv ?? {});
    const strings = coercing(schemas, {
      ...ajv,
      customOptions: { ...ajv?.customOptions, coerceTypes: true },
    });
    return (route: Parameters<typeof bodies>[0]) =>
      route.httpPart === "querystring" || route.httpPart === "params" ? strings(route) : bodies(route);
  };
}
