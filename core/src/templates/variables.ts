import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { MailroomError } from "../errors/index.ts";
import type { VariablesSchema } from "./types.ts";

// ajv-formats is CommonJS with a `default` export; under NodeNext the default import is the module object.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

// Draft-07, the dialect of the API's own schemas. Unknown keywords are errors (a typo must not silently
// disable a check); all errors are collected so a failed render names every bad variable at once. Schemas are
// never registered by their `$id`: one account's schema can neither clash with nor be `$ref`'d by another's.
// Created on first use: only templates with a variables schema need it.
let ajvInstance: Ajv | undefined;
function ajv(): Ajv {
  if (ajvInstance) return ajvInstance;
  ajvInstance = new Ajv({
    allErrors: true,
    addUsedSchema: false,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    logger: false,
  });
  addFormats(ajvInstance);
  return ajvInstance;
}

const CACHE_LIMIT = 500;
const MAX_REPORTED = 20;
// Validators by the schema's JSON text: the same stored schema is compiled once, not per send.
const validators = new Map<string, { schema: VariablesSchema; validate: ValidateFunction }>();

function validatorFor(schema: VariablesSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached.validate;
  const validate = ajv().compile(schema);
  if (validators.size >= CACHE_LIMIT) {
    const [oldestKey, oldest] = validators.entries().next().value as [string, { schema: VariablesSchema }];
    validators.delete(oldestKey);
    ajv().removeSchema(oldest.schema);
  }
  validators.set(key, { schema, validate });
  return validate;
}

/** Checks that a variables schema is a JSON Schema ajv can compile; throws `validation_error` otherwise. */
export function checkVariablesSchema(schema: VariablesSchema): void {
  try {
    validatorFor(schema);
  } catch (error) {
    throw new MailroomError(
      "validation_error",
      `variables: not a usable JSON Schema: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function describe(error: ErrorObject): string {
  const path = error.instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
  if (error.keyword === "required") {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `${path ? `${path}.` : ""}${missing} is missing`;
  }
  if (error.keyword === "additionalProperties") {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `${path ? `${path}.` : ""}${extra} is not allowed`;
  }
  return `${path || "variables"} ${error.message ?? "is invalid"}`;
}

/**
 * Validates variables against a template's schema. Throws `template_render_error` naming every variable that
 * is missing or invalid.
 */
export function validateVariables(schema: VariablesSchema | null, variables: Record<string, unknown>): void {
  if (!schema) return;
  const validate = validatorFor(schema);
  if (validate(variables)) return;
  const problems = [...new Set((validate.errors ?? []).map(describe))].slice(0, MAX_REPORTED);
  throw new MailroomError("template_render_error", `Template variables do not match: ${problems.join("; ")}`);
}
