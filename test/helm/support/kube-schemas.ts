import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import * as kubeModels from "@kubernetes/client-node";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";
import { type Manifest, REPO_ROOT } from "./helm.ts";

/** One schema violation, with the JSON path where it was found. */
export interface SchemaProblem {
  path: string;
  message: string;
}

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

/**
 * Where the OpenAPI-derived validators for a built-in or well-known kind live: kubernetes-models (core and
 * extension APIs), @kubernetes-models/cert-manager, @kubernetes-models/prometheus-operator and
 * @kubernetes-models/gateway-api (HTTPRoute, BackendTLSPolicy).
 */
function modelModule(apiVersion: string): string {
  if (apiVersion === "cert-manager.io/v1") return "@kubernetes-models/cert-manager/cert-manager.io/v1";
  if (apiVersion === "gateway.networking.k8s.io/v1") {
    return "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1";
  }
  if (apiVersion === "monitoring.coreos.com/v1") {
    return "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
  }
  return `kubernetes-models/${apiVersion}`;
}

/** Validates against the Kubernetes OpenAPI schema of the manifest's kind (types, enums, required fields). */
async function openApiProblems(manifest: Manifest): Promise<SchemaProblem[]> {
  let module: Record<string, unknown>;
  try {
    module = (await import(modelModule(manifest.apiVersion))) as Record<string, unknown>;
  } catch {
    return [{ path: "/apiVersion", message: `no schema known for apiVersion ${manifest.apiVersion}` }];
  }
  const Model = module[manifest.kind] as ModelClass | undefined;
  if (!Model)
    return [{ path: "/kind", message: `no schema known for ${manifest.apiVersion} ${manifest.kind}` }];
  try {
    new Model(manifest).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: Array<{ instancePath: string; message?: string }> }).errors;
    if (!errors) throw error;
    return errors.map((e) => ({ path: e.instancePath || "/", message: e.message ?? "invalid" }));
  }
}

// The OpenAPI validators accept unknown fields, as the API server does without strict field validation; a
// misspelt field (readOnlyRootFileSystem) would then be silently dropped. @kubernetes/client-node's models carry
// every field of every built-in type, so walk the manifest against them (what `kubectl --validate=strict` does).
// ajv-formats is CommonJS: under Node's ESM its function is the default export's `default`.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

type AttributeMap = Array<{ name: string; baseName: string; type: string }>;
const models = kubeModels as unknown as Record<
  string,
  { getAttributeTypeMap?: () => AttributeMap } | undefined
>;
const OPAQUE_TYPES = new Set(["string", "number", "boolean", "Date", "any", "object", "IntOrString"]);

/** The client-node model class of a top-level kind, e.g. apps/v1 Deployment -> V1Deployment. */
function topLevelModel(apiVersion: string): string {
  const version = apiVersion.split("/").at(-1) ?? "";
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}`;
}

function unknownFieldProblems(value: unknown, type: string, at: string, out: SchemaProblem[]): void {
  if (value === null || value === undefined || OPAQUE_TYPES.has(type)) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array?.[1]) {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) unknownFieldProblems(item, array[1], `${at}/${i}`, out);
    }
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map?.[1]) {
    for (const [key, item] of Object.entries(value as object))
      unknownFieldProblems(item, map[1], `${at}/${key}`, out);
    return;
  }
  const attributes = models[type]?.getAttributeTypeMap?.();
  if (!attributes || typeof value !== "object" || Array.isArray(value)) return;
  for (const [key, item] of Object.entries(value)) {
    const attribute = attributes.find((a) => a.baseName === key);
    if (!attribute) out.push({ path: `${at}/${key}`, message: `unknown field "${key}" (${type})` });
    else unknownFieldProblems(item, attribute.type, `${at}/${key}`, out);
  }
}

/** Unknown-field check for built-in kinds; kinds client-node does not model (CRs of other projects) are skipped. */
function strictFieldProblems(manifest: Manifest): SchemaProblem[] {
  const type = `${topLevelModel(manifest.apiVersion)}${manifest.kind}`;
  if (!models[type]?.getAttributeTypeMap) return [];
  const out: SchemaProblem[] = [];
  unknownFieldProblems(manifest, type, "", out);
  return out;
}

/** A CRD version's schema, compiled, and as written (for the unknown-field walk). */
export interface CrdValidator {
  validate: ValidateFunction;
  schema: CrdSchema;
}

interface CrdSchema {
  properties?: Record<string, CrdSchema>;
  items?: CrdSchema;
  additionalProperties?: CrdSchema | boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
}

// CRDs of other projects whose objects the chart renders (CloudNativePG's Cluster), committed as fixtures;
// each file names its source.
const FIXTURE_CRDS = path.join(REPO_ROOT, "test/helm/fixtures");

/**
 * A validator per custom kind the chart may render, from the openAPIV3Schema of each CRD: ours, generated in
 * crds/, and those of other projects in test/helm/fixtures/.
 */
export async function loadMailroomCrdValidators(): Promise<Map<string, CrdValidator>> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validators = new Map<string, CrdValidator>();
  const files = (await readdir(path.join(REPO_ROOT, "crds"))).map((f) => path.join(REPO_ROOT, "crds", f));
  for (const dir of await readdir(FIXTURE_CRDS)) {
    for (const f of await readdir(path.join(FIXTURE_CRDS, dir))) files.push(path.join(FIXTURE_CRDS, dir, f));
  }
  for (const file of files) {
    const crd = parse(await readFile(file, "utf8"));
    for (const version of crd.spec.versions) {
      const schema = version.schema.openAPIV3Schema as CrdSchema;
      validators.set(`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`, {
        validate: ajv.compile(schema),
        schema,
      });
    }
  }
  return validators;
}

/** Fields a structural schema does not declare: the API server would drop them without a word (pruning). */
function prunedFields(value: unknown, schema: CrdSchema | undefined, at: string, out: SchemaProblem[]): void {
  if (!schema || value === null || typeof value !== "object") return;
  if (schema["x-kubernetes-preserve-unknown-fields"]) return;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) prunedFields(item, schema.items, `${at}/${i}`, out);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const declared = schema.properties?.[key];
    const extra = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
    if (declared || extra) prunedFields(item, declared ?? extra, `${at}/${key}`, out);
    else if (schema.properties && at !== "/metadata")
      out.push({ path: `${at}/${key}`, message: `unknown field "${key}"` });
  }
}

/**
 * Every problem with one rendered manifest: Kubernetes' OpenAPI schema and unknown fields for built-in and
 * well-known kinds; the CRD's schema and undeclared fields for custom kinds (ours, CloudNativePG's).
 */
export async function manifestProblems(
  manifest: Manifest,
  crdValidators: Map<string, CrdValidator>,
): Promise<SchemaProblem[]> {
  const crd = crdValidators.get(`${manifest.apiVersion}/${manifest.kind}`);
  if (crd) {
    const problems: SchemaProblem[] = [];
    if (!crd.validate(manifest)) {
      for (const e of crd.validate.errors ?? [])
        problems.push({ path: e.instancePath || "/", message: e.message ?? "invalid" });
    }
    prunedFields(manifest, crd.schema, "", problems);
    return problems;
  }
  if (manifest.apiVersion.startsWith("mailroom.dev/")) {
    return [{ path: "/kind", message: `no CRD in crds/ for ${manifest.apiVersion} ${manifest.kind}` }];
  }
  return [...(await openApiProblems(manifest)), ...strictFieldProblems(manifest)];
}
