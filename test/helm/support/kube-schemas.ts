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
 * extension APIs), @kubernetes-models/cert-manager and @kubernetes-models/prometheus-operator.
 */
function modelModule(apiVersion: string): string {
  if (apiVersion === "cert-manager.io/v1") return "@kubernetes-models/cert-manager/cert-manager.io/v1";
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

/** A validator per Mailroom kind, from the openAPIV3Schema of our generated CRDs in crds/. */
export async function loadMailroomCrdValidators(): Promise<Map<string, ValidateFunction>> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();
  const dir = path.join(REPO_ROOT, "crds");
  for (const file of await readdir(dir)) {
    const crd = parse(await readFile(path.join(dir, file), "utf8"));
    for (const version of crd.spec.versions) {
      validators.set(
        `${crd.spec.group}/${version.name}/${crd.spec.names.kind}`,
        ajv.compile(version.schema.openAPIV3Schema),
      );
    }
  }
  return validators;
}

/**
 * Every problem with one rendered manifest: Kubernetes' OpenAPI schema and unknown fields for built-in and
 * well-known kinds; our own CRD schemas for mailroom.dev kinds.
 */
export async function manifestProblems(
  manifest: Manifest,
  crdValidators: Map<string, ValidateFunction>,
): Promise<SchemaProblem[]> {
  if (manifest.apiVersion.startsWith("mailroom.dev/")) {
    const validate = crdValidators.get(`${manifest.apiVersion}/${manifest.kind}`);
    if (!validate)
      return [{ path: "/kind", message: `no CRD in crds/ for ${manifest.apiVersion} ${manifest.kind}` }];
    if (validate(manifest)) return [];
    return (validate.errors ?? []).map((e) => ({
      path: e.instancePath || "/",
      message: e.message ?? "invalid",
    }));
  }
  return [...(await openApiProblems(manifest)), ...strictFieldProblems(manifest)];
}
