/**
 * What every controller's reconcile and finalize need, passed in so the same code runs in the cluster
 * (Secrets and Events through kube/index.ts) and in local mode (files under the data directory, a log line).
 */
import type { V1OwnerReference } from "@kubernetes/client-node";
import type { Pool } from "@mailroom/core/db";
import type { RecordOptions } from "@mailroom/core/domains";
import type { DnsEndpointRecord } from "../external-dns.ts";

/** Enough of a logger for the operator; pino's Logger satisfies it. Never pass a key or secret to it. */
export interface OperatorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Identifies the object a Secret or Event belongs to. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion?: string | undefined;
}

/** A Secret as the controllers see it: decoded string data plus who manages it. */
export interface SecretData {
  data: Record<string, string>;
  /** True when the operator wrote it (label app.kubernetes.io/managed-by=mailroom-operator). */
  managedByOperator: boolean;
  /** The resource the operator wrote it for (annotation mailroom.dev/owner, `<Kind>/<name>`), if recorded. */
  owner?: string | undefined;
  /** uids of its ownerReferences. */
  ownerUids: string[];
}

/** Who a Secret is written for: recorded on it, and its ownerReference when the reclaim policy wants one. */
export interface SecretOwner {
  ref: ObjectRef;
  /** Present only while deleting the resource should delete the Secret (reclaimPolicy Delete). */
  ownerReference?: V1OwnerReference | undefined;
}

/** Where generated material goes: Kubernetes Secrets, or files in local mode. */
export interface SecretStore {
  read(namespace: string, name: string): Promise<SecretData | undefined>;
  /**
   * Creates or replaces the whole Secret (type Opaque), labelled as the operator's and annotated with its
   * owner. Throws SecretConflictError when the Secret is someone else's.
   */
  write(namespace: string, name: string, data: Record<string, string>, owner: SecretOwner): Promise<void>;
  /** Deletes an operator-managed Secret; a missing one is fine. */
  remove(namespace: string, name: string): Promise<void>;
  /** Sets the Secret's ownerReferences to `ownerReference` alone, or none; a missing Secret is fine. */
  setOwnerReference(
    namespace: string,
    name: string,
    ownerReference: V1OwnerReference | undefined,
  ): Promise<void>;
}

/** A Secret the operator would have to overwrite belongs to someone else. */
export class SecretConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretConflictError";
  }
}

/** `<Kind>/<name>`: how a Secret records the resource it was written for (same namespace). */
export const ownerKeyOf = (ref: ObjectRef): string => `${ref.kind}/${ref.name}`;

/**
 * Why the operator may not write `secret` for `ref`, or undefined when it may: a Secret it did not write
 * (no managed-by label) is never overwritten, nor one written for another resource (two ApiKeys naming
 * the same secretName would otherwise revoke each other's key on every resync).
 */
export function secretConflict(
  name: string,
  secret: SecretData | undefined,
  ref: ObjectRef,
): string | undefined {
  if (!secret) return undefined;
  if (!secret.managedByOperator) {
    return `Secret ${name} exists and was not written by the operator; refusing to overwrite it`;
  }
  if (secret.owner && secret.owner !== ownerKeyOf(ref)) {
    return `Secret ${name} belongs to ${secret.owner} in this namespace; choose another secretName`;
  }
  return undefined;
}

/** Records what happened to an object, for `kubectl describe` (or the apply command's output). */
export interface EventRecorder {
  record(object: ObjectRef, type: "Normal" | "Warning", reason: string, message: string): Promise<void>;
}

/** What publishing a DNSEndpoint came to. */
export type DnsPublishResult =
  | { result: "published"; changed: boolean }
  /** Nothing was published, and why: the API server does not serve the CRD, or there is no cluster. */
  | { result: "unavailable"; message: string }
  /** An object of that name exists and belongs to someone else; it is left alone. */
  | { result: "conflict"; message: string };

/** external-dns DNSEndpoint objects, one per owning resource, in the owner's namespace. */
export interface DnsEndpointStore {
  /**
   * Creates or updates `name` to hold exactly `records`; with `ownerReference` it carries a controller
   * ownerReference to `owner`, without it none (reclaimPolicy Retain: it must survive the owner).
   */
  publish(
    owner: ObjectRef,
    name: string,
    records: readonly DnsEndpointRecord[],
    options: { ownerReference: boolean },
  ): Promise<DnsPublishResult>;
  /** Deletes `name` if `owner` owns it; a missing object, or a missing CRD, is fine. */
  unpublish(owner: ObjectRef, name: string): Promise<void>;
  /** Drops `owner`'s ownerReference, so the records outlive a resource deleted with reclaimPolicy Retain. */
  disown(owner: ObjectRef, name: string): Promise<void>;
}

/** A namespace as a ClusterSendingDomain's allowedNamespaces.selector sees it. */
export interface NamespaceInfo {
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** The cluster's namespaces (in local mode: the Namespace manifests applied with the resources). */
export interface NamespaceLister {
  list(): Promise<NamespaceInfo[]>;
}

/** Dependencies of one reconcile. */
export interface ReconcileContext {
  pool: Pool;
  /** Key-encryption key for DKIM private keys (SendingDomain). */
  kek: Buffer;
  secrets: SecretStore;
  events: EventRecorder;
  /** Where SendingDomain records go when spec.publishDNS is set. */
  dnsEndpoints: DnsEndpointStore;
  /** Namespaces and their labels, for ClusterSendingDomain's allowedNamespaces.selector. */
  namespaces: NamespaceLister;
  log: OperatorLogger;
  now: () => Date;
  /** Put an ownerReference on generated Secrets, so deleting the resource deletes them (GC). */
  ownerReferences: boolean;
  /** What a new domain's advisory records say (bounce MX host, SPF mechanisms); defaults when absent. */
  dnsRecords?: RecordOptions | undefined;
}

/** The label marking Secrets the operator wrote, and may overwrite or delete. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY_VALUE = "mailroom-operator";
/** The annotation naming the resource an operator-written Secret belongs to. */
export const OWNER_ANNOTATION = "mailroom.dev/owner";

/**
 * The controller ownerReference to `ref`. No blockOwnerDeletion: setting it needs the owner's finalizers
 * permission, and the operator's finalizer already orders what must happen before the owner goes.
 */
export function controllerReferenceTo(ref: ObjectRef): V1OwnerReference {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, controller: true };
}

/**
 * The ownerReference a dependent of `ref` should carry now, or undefined. Only while the reclaim policy is
 * Delete: garbage collection (foreground deletion first of all) deletes dependents before the finalizer
 * runs, so a dependent that must outlive its resource (Retain) may never carry one.
 */
export function ownerReferenceFor(
  ctx: ReconcileContext,
  ref: ObjectRef,
  reclaimPolicy: "Delete" | "Retain" | undefined = "Delete",
): V1OwnerReference | undefined {
  if (!ctx.ownerReferences || reclaimPolicy === "Retain") return undefined;
  return controllerReferenceTo(ref);
}
