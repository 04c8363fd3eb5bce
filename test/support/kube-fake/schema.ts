/**
 * What kube-apiserver does to a custom resource before storing it, in its order: prune unknown fields
 * (or reject them under fieldValidation=Strict), apply schema defaults, validate against the CRD's
 * openAPIV3Schema (ajv), then the CEL rules (see cel.ts for the subset evaluated).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { type CelRule, collectCelRules, evaluateCelRules } from "./cel.ts";
import type { StatusCause } from "./status.ts";

/** A schema node, loosely typed: it comes from YAML. */
export interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-list-map-keys"?: string[];
}

/** One served custom resource type, compiled from a CRD manifest. */
export interface CustomResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  listKind: string;
  statusSubresource: boolean;
  /** `scope: Cluster`: no namespace in its paths or objects. */
  clusterScoped: boolean;
  schema: SchemaNode;
  validate: ValidateFunction;
  celRules: CelRule[];
}

/** Outcome of admitting an object: pruned paths (for warnings or Strict rejection) and field errors. */
export interface Admission {
  unknownFields: string[];
  causes: StatusCause[];
}

function makeAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    verbose: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
  });
  // Annotations ajv need not act on (pruning and CEL are done outside ajv).
  for (const keyword of [
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-validations",
    "x-kubernetes-list-map-keys",
  ]) {
    ajv.addKeyword({ keyword });
  }
  ajv.addKeyword({
    keyword: "x-kubernetes-list-type",
    type: "array",
    schemaType: "string",
    errors: true,
    // Structural schemas forbid uniqueItems; list types are how Kubernetes expresses uniqueness.
    validate: function listType(kind: string, data: unknown[], parent?: AnySchemaObject) {
      if (kind === "atomic") return true;
      const keys: string[] = parent?.["x-kubernetes-list-map-keys"] ?? [];
      const identity = (v: unknown) =>
        kind === "map" && v && typeof v === "object"
          ? Object.fromEntries(keys.map((k) => [k, (v as Record<string, unknown>)[k]]))
          : v;
      const errors: Partial<ErrorObject>[] = [];
      data.forEach((item, index) => {
        const id = identity(item);
        if (data.slice(0, index).some((earlier) => isDeepStrictEqual(identity(earlier), id))) {
          errors.push({ keyword: "x-kubernetes-list-type", message: "duplicate", params: { index, id } });
        }
      });
      (listType as { errors?: Partial<ErrorObject>[] }).errors = errors;
      return errors.length === 0;
    },
  });
  ajv.addFormat("int32", true);
  ajv.addFormat("int64", true);
  ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/);
  return ajv;
}

/** The parts of an apiextensions.k8s.io/v1 CustomResourceDefinition the fake reads. */
export interface CustomResourceDefinitionManifest {
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope?: string;
    names: { kind: string; plural: string; listKind?: string };
    versions: {
      name: string;
      served: boolean;
      storage?: boolean;
      subresources?: { status?: object };
      schema: { openAPIV3Schema: unknown };
    }[];
  };
}

/**
 * Compiles the served versions of one CRD. Throws, as the API server refuses the CRD, when its name is not
 * `<plural>.<group>` or its scope is neither Namespaced nor Cluster.
 */
export function compileCustomResourceDefinition(
  crd: CustomResourceDefinitionManifest,
  ajv: Ajv = makeAjv(),
): CustomResourceType[] {
  if (crd.kind !== "CustomResourceDefinition") throw new Error(`not a CustomResourceDefinition: ${crd.kind}`);
  const { group, names } = crd.spec;
  if (crd.metadata.name !== `${names.plural}.${group}`) {
    throw new Error(
      `CustomResourceDefinition ${crd.metadata.name}: the name must be ${names.plural}.${group}`,
    );
  }
  const scope = crd.spec.scope ?? "Namespaced";
  if (scope !== "Namespaced" && scope !== "Cluster") {
    throw new Error(`CustomResourceDefinition ${crd.metadata.name}: unknown scope ${scope}`);
  }
  return crd.spec.versions
    .filter((version) => version.served)
    .map((version) => {
      const schema = version.schema.openAPIV3Schema as SchemaNode;
      return {
        group,
        version: version.name,
        plural: names.plural,
        kind: names.kind,
        listKind: names.listKind ?? `${names.kind}List`,
        statusSubresource: Boolean(version.subresources?.status),
        clusterScoped: scope === "Cluster",
        schema,
        validate: ajv.compile(schema),
        celRules: collectCelRules(schema as Parameters<typeof collectCelRules>[0]),
      };
    });
}

/** Reads every CRD manifest in `dir` (the generated crds/, so the fake checks exactly what ships). */
export function loadCustomResourceTypes(dir: string): CustomResourceType[] {
  const ajv = makeAjv();
  const types: CustomResourceType[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    const crd = parse(readFileSync(path.join(dir, file), "utf8"));
    if (crd?.kind !== "CustomResourceDefinition") continue;
    types.push(...compileCustomResourceDefinition(crd, ajv));
  }
  return types;
}

function prune(value: unknown, schema: SchemaNode, at: string, unknown: string[]): void {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items) for (const [i, v] of value.entries()) prune(v, items, `${at}[${i}]`, unknown);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const obj = value as Record<string, unknown>;
  const additional = schema.additionalProperties;
  if (additional && typeof additional === "object") {
    // A map (labels, say): every key is kept and each value follows the value schema.
    for (const key of Object.keys(obj)) prune(obj[key], additional, `${at}[${key}]`, unknown);
    return;
  }
  const props = schema.properties ?? {};
  for (const key of Object.keys(obj)) {
    const child = props[key];
    const where = at ? `${at}.${key}` : key;
    // ObjectMeta is decoded by the server itself, not pruned by the CRD schema.
    if (where === "metadata") continue;
    if (child) prune(obj[key], child, where, unknown);
    else if (!schema["x-kubernetes-preserve-unknown-fields"]) {
      delete obj[key];
      unknown.push(where);
    }
  }
}

function fieldOf(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((seg, i) => (/^\d+$/.test(seg) ? `[${seg}]` : i === 0 ? seg : `.${seg}`))
    .join("");
}

function shown(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v ?? null);
}

function toCause(e: ErrorObject, data: unknown): StatusCause | undefined {
  const field = fieldOf(e.instancePath);
  const value = e.instancePath
    .split("/")
    .slice(1)
    .reduce<unknown>((cur, seg) => (cur as Record<string, unknown> | undefined)?.[seg], data);
  const p = e.params as Record<string, unknown>;
  const inBody = `${field} in body`;
  switch (e.keyword) {
    case "required":
      return {
        reason: "FieldValueRequired",
        message: "Required value",
        field: field ? `${field}.${p.missingProperty}` : String(p.missingProperty),
      };
    case "enum":
      return {
        reason: "FieldValueNotSupported",
        message: `Unsupported value: ${shown(value)}: supported values: ${(p.allowedValues as unknown[]).map(shown).join(", ")}`,
        field,
      };
    case "type":
      return {
        reason: "FieldValueTypeInvalid",
        message: `Invalid value: "${typeof value}": ${inBody} must be of type ${p.type}: "${typeof value}"`,
        field,
      };
    case "maxLength":
      return {
        reason: "FieldValueTooLong",
        message: `Too long: may not be more than ${p.limit} bytes`,
        field,
      };
    case "maxItems":
      return {
        reason: "FieldValueTooMany",
        message: `Too many: ${(value as unknown[]).length}: must have at most ${p.limit} items`,
        field,
      };
    case "x-kubernetes-list-type":
      return {
        reason: "FieldValueDuplicate",
        message: `Duplicate value: ${shown(p.id)}`,
        field: `${field}[${p.index}]`,
      };
    case "anyOf":
      return {
        reason: "FieldValueInvalid",
        message: `Invalid value: ${shown(value)}: ${inBody} must match at least one of ${describeAnyOf(e)}`,
        field,
      };
    case "minLength":
    case "minItems":
    case "minimum":
    case "maximum":
    case "pattern":
    case "format":
      return {
        reason: "FieldValueInvalid",
        message: `Invalid value: ${shown(value)}: ${inBody} ${e.message}`,
        field,
      };
    default:
      return { reason: "FieldValueInvalid", message: `Invalid value: ${shown(value)}: ${e.message}`, field };
  }
}

function describeAnyOf(e: ErrorObject): string {
  const branches = (e.parentSchema as { anyOf?: { required?: string[] }[] } | undefined)?.anyOf ?? [];
  return branches
    .map((b) => (b.required ? `{required: ${b.required.join(", ")}}` : JSON.stringify(b)))
    .join(" | ");
}

/**
 * Prunes, defaults and validates `obj` in place against `type`; `old` is the stored object on update (for
 * CEL transition rules). Returns the pruned field paths and the field errors (empty when admitted).
 */
export function admitCustomResource(
  type: CustomResourceType,
  obj: Record<string, unknown>,
  old: unknown,
): Admission {
  const unknownFields: string[] = [];
  prune(obj, type.schema, "", unknownFields);
  const causes: StatusCause[] = [];
  if (!type.validate(obj)) {
    for (const e of type.validate.errors ?? []) {
      // anyOf branch failures are reported once, by the anyOf error itself.
      if (e.schemaPath.includes("/anyOf/")) continue;
      const cause = toCause(e, obj);
      if (cause) causes.push(cause);
    }
  }
  if (causes.length === 0) causes.push(...evaluateCelRules(type.celRules, obj, old));
  return { unknownFields, causes };
}
