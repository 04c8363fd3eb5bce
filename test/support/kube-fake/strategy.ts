/**
 * The registry "strategies" of kube-apiserver for create and update: which fields a client may set, what the
 * server keeps from the stored object, and the /status split. The store applies them, then admits and stores.
 */
import { randomUUID } from "node:crypto";
import { checkTypeMeta, type KubeObject } from "./admission.ts";
import type { ResourceType } from "./resources.ts";
import { badRequest, conflict, invalid, STALE_OBJECT } from "./status.ts";

/** RFC 3339 with second precision, as metav1.Time serialises. */
export const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

const NAME_SUFFIX = "bcdfghjklmnpqrstvwxz2456789";
const NAMESPACE_MISMATCH =
  "the namespace of the provided object does not match the namespace sent on the request";
// Server-owned metadata: cleared on create, carried over from the stored object on update.
const SERVER_FIELDS = [
  "uid",
  "creationTimestamp",
  "generation",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
];

/** Turns a create body into the object to admit: server metadata set, a CR's status dropped. */
export function prepareForCreate(
  type: ResourceType,
  namespace: string,
  body: Record<string, unknown>,
): KubeObject {
  checkTypeMeta(type, body);
  const obj = body as unknown as KubeObject;
  obj.metadata ??= {};
  const meta = obj.metadata;
  // A cluster-scoped object has no namespace: the API server drops one sent in the body.
  if (type.clusterScoped) delete meta.namespace;
  if (meta.namespace !== undefined && meta.namespace !== namespace) throw badRequest(NAMESPACE_MISMATCH);
  if (!meta.name && meta.generateName) {
    const suffix = Array.from(
      { length: 5 },
      () => NAME_SUFFIX[Math.floor(Math.random() * NAME_SUFFIX.length)],
    );
    meta.name = meta.generateName + suffix.join("");
  }
  if (meta.resourceVersion) {
    throw invalid(type.kind, type.group, meta.name ?? "", [
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: must not be set on create",
        field: "metadata.resourceVersion",
      },
    ]);
  }
  for (const field of [...SERVER_FIELDS, "managedFields"]) delete meta[field];
  // A custom resource's status only ever comes through /status.
  if (type.custom?.statusSubresource) delete obj.status;
  Object.assign(meta, {
    ...(type.clusterScoped ? {} : { namespace }),
    uid: randomUUID(),
    creationTimestamp: now(),
  });
  if (type.custom) meta.generation = 1;
  return obj;
}

/** A PUT of a custom resource must name the resourceVersion it replaces; built-ins may update unconditionally. */
export function requireResourceVersion(type: ResourceType, name: string, candidate: KubeObject): void {
  if (type.custom && !candidate.metadata?.resourceVersion) {
    throw invalid(type.kind, type.group, name, [
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: 0x0: must be specified for an update",
        field: "metadata.resourceVersion",
      },
    ]);
  }
}

/**
 * Merges an update candidate with the stored object: /status takes only status; the main resource takes all
 * but server metadata (and status, when the status subresource is on). Throws 409 on a stale resourceVersion.
 */
export function prepareForUpdate(
  type: ResourceType,
  prev: KubeObject,
  candidate: KubeObject,
  status: boolean,
): KubeObject {
  const name = prev.metadata.name ?? "";
  const meta = candidate.metadata ?? {};
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  }
  if (meta.namespace !== undefined && meta.namespace !== prev.metadata.namespace)
    throw badRequest(NAMESPACE_MISMATCH);
  if (meta.resourceVersion && meta.resourceVersion !== prev.metadata.resourceVersion) {
    throw conflict({ group: type.group, resource: type.plural, name }, STALE_OBJECT);
  }
  if (status) {
    const next = structuredClone(prev);
    if (candidate.status === undefined) delete next.status;
    else next.status = candidate.status;
    return next;
  }
  const next: KubeObject = { ...candidate, metadata: { ...meta } };
  delete next.metadata.managedFields;
  for (const field of ["name", "namespace", ...SERVER_FIELDS]) {
    if (prev.metadata[field] === undefined) delete next.metadata[field];
    else next.metadata[field] = prev.metadata[field];
  }
  if (type.custom?.statusSubresource) {
    if (prev.status === undefined) delete next.status;
    else next.status = prev.status;
  }
  const added = (next.metadata.finalizers ?? []).filter((f) => !(prev.metadata.finalizers ?? []).includes(f));
  if (prev.metadata.deletionTimestamp && added.length > 0) {
    const list = added.map((f) => JSON.stringify(f)).join(", ");
    throw invalid(type.kind, type.group, name, [
      {
        reason: "FieldValueForbidden",
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${list}}`,
        field: "metadata.finalizers",
      },
    ]);
  }
  return next;
}
