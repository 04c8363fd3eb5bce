/**
 * Per-kind admission before an object is stored: type meta, object names, Secret stringData, and for our
 * custom resources the CRD schema (schema.ts). Returns warnings for the `Warning` response header.
 */
import { builtInCauses, ownerReferenceCauses } from "./built-in.ts";
import type { KubeObject } from "./object.ts";
import { apiVersionOf, type ResourceType } from "./resources.ts";
import { admitCustomResource } from "./schema.ts";
import { badRequest, invalid, type StatusCause } from "./status.ts";

export type { KubeObject } from "./object.ts";

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Checks apiVersion/kind against the URL's type and fills them in for built-ins (typed clients may omit them). */
export function checkTypeMeta(type: ResourceType, body: Record<string, unknown>): void {
  const expected = apiVersionOf(type);
  if (type.custom && (!body.apiVersion || !body.kind)) {
    throw badRequest(`Object 'Kind' or 'apiVersion' is missing in ${JSON.stringify(body).slice(0, 200)}`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${body.apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  if (body.kind !== undefined && body.kind !== type.kind) {
    throw badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${type.kind})`);
  }
  body.apiVersion = expected;
  body.kind = type.kind;
}

/** The name must be a DNS-1123 subdomain, as for every kind the fake serves. */
export function nameCauses(name: string | undefined): StatusCause[] {
  if (!name)
    return [
      {
        reason: "FieldValueRequired",
        message: "Required value: name or generateName is required",
        field: "metadata.name",
      },
    ];
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return [
      {
        reason: "FieldValueInvalid",
        message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
        field: "metadata.name",
      },
    ];
  }
  return [];
}

function normalizeSecret(obj: KubeObject): void {
  // stringData is write-only: merged into data, never stored or returned.
  const stringData = obj.stringData as Record<string, string> | undefined;
  const data = { ...((obj.data as Record<string, string> | undefined) ?? {}) };
  for (const [key, value] of Object.entries(stringData ?? {}))
    data[key] = Buffer.from(value, "utf8").toString("base64");
  delete obj.stringData;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== "string" || !BASE64.test(value))
      throw badRequest(`illegal base64 data in Secret data[${JSON.stringify(key)}]`);
  }
  if (Object.keys(data).length > 0) obj.data = data;
  obj.type ??= "Opaque";
}

/**
 * Admits `obj` (mutating it: pruning, defaults, Secret normalisation). `old` is the stored object on update.
 * Throws 422 Invalid on field errors, 400 on unknown fields under fieldValidation=Strict.
 */
export function admit(
  type: ResourceType,
  obj: KubeObject,
  old: KubeObject | undefined,
  strict: boolean,
): string[] {
  const causes = nameCauses(obj.metadata.name);
  if (type.kind === "Secret") normalizeSecret(obj);
  causes.push(...ownerReferenceCauses(obj));
  if (!type.custom) causes.push(...builtInCauses(type.kind, obj, old));
  let warnings: string[] = [];
  if (type.custom) {
    const admission = admitCustomResource(type.custom, obj, old);
    if (admission.unknownFields.length > 0) {
      const messages = admission.unknownFields.map((f) => `unknown field "${f}"`);
      if (strict) throw badRequest(`strict decoding error: ${messages.join(", ")}`);
      warnings = messages;
    }
    causes.push(...admission.causes);
  }
  if (causes.length > 0) throw invalid(type.kind, type.group, obj.metadata.name ?? "", causes);
  return warnings;
}
