/**
 * The fake does NOT embed a CEL interpreter. It evaluates exactly the rule shapes our CRDs use and refuses to
 * start on any other rule, so a new rule cannot silently go unchecked in tests:
 *   - `self == oldSelf`      transition rule: the value may not change once set (checked on update only)
 *   - `'<literal>' in self`  the list must contain the literal
 *   - `!has(oldSelf.f) || (has(self.f) && self.f == oldSelf.f)`  on an object: field f, once set, may be
 *     neither changed nor removed (a rule on f itself does not run when f is absent, so it misses a removal)
 * Equality follows CEL on Kubernetes: a list declared `x-kubernetes-list-type: set` compares as a set (the
 * API server ignores order there), `map` lists by key, anything else element by element.
 * Adding a rule shape to the CRDs means adding it here too.
 */
import { isDeepStrictEqual } from "node:util";
import type { StatusCause } from "./status.ts";

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-validations"?: { rule: string; message?: string }[];
}

type Check = (self: unknown, oldSelf: unknown, isUpdate: boolean) => boolean;

/** One compiled rule at a property path (e.g. ["spec", "domain"]). */
export interface CelRule {
  path: string[];
  rule: string;
  message: string;
  check: Check;
}

const IN_LITERAL = /^'([^'\\]*)' in self$/;
const FIELD_KEPT = /^!has\(oldSelf\.(\w+)\) \|\| \(has\(self\.\1\) && self\.\1 == oldSelf\.\1\)$/;

/** A value in a form where deep equality is CEL equality under the schema's list types. */
function canonical(value: unknown, schema: SchemaNode | undefined): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v, schema?.items));
    const listType = schema?.["x-kubernetes-list-type"];
    if (listType === "set" || listType === "map") {
      return items.map((v) => JSON.stringify(v)).sort();
    }
    return items;
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, canonical(v, schema?.properties?.[k])]),
    );
  }
  return value;
}

function compile(rule: string, where: string, schema: SchemaNode): Check {
  const trimmed = rule.trim();
  const equal = (a: unknown, b: unknown, node: SchemaNode | undefined) =>
    isDeepStrictEqual(canonical(a, node), canonical(b, node));
  if (trimmed === "self == oldSelf") {
    // Transition rules only run when an old value exists (updates).
    return (self, oldSelf, isUpdate) => !isUpdate || oldSelf === undefined || equal(self, oldSelf, schema);
  }
  const kept = FIELD_KEPT.exec(trimmed);
  if (kept) {
    const field = kept[1] as string;
    const node = schema.properties?.[field];
    return (self, oldSelf, isUpdate) => {
      if (!isUpdate || oldSelf === undefined) return true;
      const before = (oldSelf as Record<string, unknown>)[field];
      const after = (self as Record<string, unknown>)[field];
      return before === undefined || (after !== undefined && equal(after, before, node));
    };
  }
  const inLiteral = IN_LITERAL.exec(trimmed);
  if (inLiteral) {
    const literal = inLiteral[1];
    return (self) => Array.isArray(self) && self.includes(literal);
  }
  throw new Error(
    `kube-fake cannot evaluate CEL rule ${JSON.stringify(rule)} at ${where}; teach cel.ts this shape`,
  );
}

/** Collects every x-kubernetes-validations rule of a schema; throws on shapes the fake cannot evaluate. */
export function collectCelRules(schema: SchemaNode, path: string[] = []): CelRule[] {
  const rules: CelRule[] = [];
  for (const { rule, message } of schema["x-kubernetes-validations"] ?? []) {
    const where = path.join(".") || "<root>";
    rules.push({
      path,
      rule,
      message: message ?? `failed rule: ${rule}`,
      check: compile(rule, where, schema),
    });
  }
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    rules.push(...collectCelRules(child, [...path, name]));
  }
  if (schema.items && collectCelRules(schema.items).length > 0) {
    throw new Error(`kube-fake does not evaluate CEL rules inside list items (${path.join(".")})`);
  }
  return rules;
}

function valueAt(obj: unknown, path: readonly string[]): unknown {
  let cur = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Evaluates the rules against a candidate object; `old` is the stored object on update. */
export function evaluateCelRules(rules: readonly CelRule[], obj: unknown, old: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const r of rules) {
    const self = valueAt(obj, r.path);
    // Like the API server, a rule on an absent field does not run.
    if (self === undefined) continue;
    if (!r.check(self, valueAt(old, r.path), old !== undefined)) {
      const shown = typeof self === "object" ? (Array.isArray(self) ? "array" : "object") : typeof self;
      causes.push({
        reason: "FieldValueInvalid",
        message: `Invalid value: "${shown}": ${r.message}`,
        field: r.path.join("."),
      });
    }
  }
  return causes;
}
