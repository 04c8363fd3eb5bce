import { MailroomError } from "../errors/index.ts";
import { compilePart } from "./compile.ts";
import { TEMPLATE_PARTS, type TemplateContent, type VariablesSchema } from "./types.ts";
import { validateVariables } from "./variables.ts";

type Json = unknown;
type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// Deep enough for any schema a person writes by hand; a recursive `$ref`-free schema cannot loop, but a
// generated one may nest far, and an example need not show every level.
const MAX_DEPTH = 8;

const STRING_FORMATS: Record<string, string> = {
  email: "ann@example.com",
  "idn-email": "ann@example.com",
  uri: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  hostname: "example.com",
  "date-time": "2026-01-01T09:00:00Z",
  date: "2026-01-01",
  time: "09:00:00Z",
  uuid: "00000000-0000-4000-8000-000000000000",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
};

/** The first JSON type a schema allows (`type` may be a list). */
function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((t) => t !== "null") ?? type[0];
  return typeof type === "string" ? type : schema.properties ? "object" : undefined;
}

/** A value a schema accepts, preferring what its author declared: `examples`, `default`, `const`, `enum`. */
function exampleOf(schema: unknown, name: string, depth: number): Json {
  if (!isObject(schema)) return name;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typeOf(schema)) {
    case "integer":
    case "number":
      return numberExample(schema);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const count = typeof schema.minItems === "number" ? Math.max(1, Math.min(schema.minItems, 3)) : 1;
      return depth >= MAX_DEPTH
        ? []
        : Array.from({ length: count }, () => exampleOf(schema.items, name, depth + 1));
    }
    case "object":
      return depth >= MAX_DEPTH ? {} : objectExample(schema, depth + 1);
    default:
      return stringExample(schema, name);
  }
}

/** 1, unless the bounds exclude it. */
function numberExample(schema: Schema): number {
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum } = schema;
  if (typeof minimum === "number") return minimum;
  if (typeof exclusiveMinimum === "number") return Math.floor(exclusiveMinimum) + 1;
  if (typeof maximum === "number" && maximum < 1) return maximum;
  if (typeof exclusiveMaximum === "number" && exclusiveMaximum <= 1) return Math.ceil(exclusiveMaximum) - 1;
  return 1;
}

/** A value of the string's format, else its property's name, stretched or cut to the length bounds. */
function stringExample(schema: Schema, name: string): string {
  const base = typeof schema.format === "string" ? (STRING_FORMATS[schema.format] ?? name) : name;
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  return base.padEnd(Math.min(min, 1000), "x").slice(0, max);
}

function objectExample(schema: Schema, depth: number): Record<string, Json> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const example = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [name, exampleOf(property, name, depth)]),
  );
  // A required name the schema describes no further: any value will do, its name reads best.
  for (const name of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof name === "string" && !(name in example)) example[name] = name;
  }
  return example;
}

/** Sets `parts` (a variable's path) to a placeholder unless something is already there. */
function fillPath(target: Record<string, Json>, parts: readonly string[]): void {
  let node = target;
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    const value = node[part];
    if (last) {
      if (value === undefined) node[part] = part;
      return;
    }
    if (value === undefined) node[part] = {};
    const next = node[part];
    if (!isObject(next)) return;
    node = next;
  }
}

/**
 * Variables to preview a template with (issue 33): the first of its schema's declared `examples` when it has
 * one, else a value for every property its schema names (their own `examples`, `default`, `const`, `enum`,
 * or one of the property's type and format); then each variable the parts read unconditionally and still
 * absent, set to its own name. A template without a schema therefore previews without a missing-variable
 * error, which is what the console's preview opened with before (422).
 */
export function exampleVariables(content: TemplateContent): Record<string, Json> {
  const schema = content.variables;
  const declared = Array.isArray(schema?.examples) ? schema.examples[0] : undefined;
  const example: Record<string, Json> = isObject(declared)
    ? structuredClone(declared)
    : schema
      ? objectExample(schema, 0)
      : {};
  for (const part of TEMPLATE_PARTS) {
    const source = content[part];
    if (source === null) continue;
    let compiled: ReturnType<typeof compilePart>;
    try {
      compiled = compilePart(part, source);
    } catch {
      continue; // checked when saved; a part that no longer compiles fails its render, not the read
    }
    for (const variable of compiled.rootVariables) fillPath(example, variable.parts);
  }
  return example;
}

/**
 * Checks a variables schema's declared `examples` against the schema itself, so what the preview starts from
 * is valid. Throws `validation_error` naming the example and every problem.
 */
export function checkDeclaredExamples(schema: VariablesSchema): void {
  // Not an array at all is refused before this, by the meta-schema (checkVariablesSchema).
  if (!Array.isArray(schema.examples)) return;
  for (const [i, example] of schema.examples.entries()) {
    if (!isObject(example)) throw invalid(`variables.examples[${i}]: must be an object`);
    try {
      validateVariables(schema, example);
    } catch (error) {
      const detail = error instanceof MailroomError ? error.message.replace(/^[^:]*: /, "") : String(error);
      throw invalid(`variables.examples[${i}]: does not match the schema: ${detail}`);
    }
  }
}

const invalid = (message: string) => new MailroomError("validation_error", message);
