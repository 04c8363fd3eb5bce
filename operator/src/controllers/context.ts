/**
 * What every controller's reconcile and finalize need, passed in so the same code runs in the cluster
 * (Secrets and Events through kube.ts) and in local mode (files under the data directory, a log line).
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
}

/** Where generated material goes: Kubernetes Secrets, or files in local mode. */
export interface SecretStore {
  read(namespace: string, name: string): Promise<SecretData | undefined>;
  /** Creates or replaces the whole Secret, labelled as the operator's; `owner` adds an ownerReference. */
  write(
    namespace: string,
    name: string,
    data: Record<string, string>,
    owner?: V1OwnerReference,
  ): Promise<void>;
  /** Deletes an operator-managed Secret; a missing one is fine. */
  remove(namespace: string, name: string): Promise<void>;
  /** Drops the Secret's ownerReferences, so it outlives a resource deleted with reclaimPolicy Retain. */
  disown(namespace: string, name: string): Promise<void>;
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
  /** Creates or updates `name` to hold exactly `records`, with a controller ownerReference to `owner`. */
  publish(owner: ObjectRef, name: string, records: readonly DnsEndpointRecord[]): Promise<DnsPublishResult>;
  /** Deletes `name` if `owner` owns it; a missing object, or a missing CRD, is fine. */
  unpublish(owner: ObjectRef, name: string): Promise<void>;
  /** Drops `owner`'s ownerReference, so the records outlive a resource deleted with reclaimPolicy Retain. */
  disown(owner: ObjectRef, name: string): Promise<void>;
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

/** The ownerReference for a generated Secret, or undefined when the option is off. */
export function ownerReferenceFor(ctx: ReconcileContext, ref: ObjectRef): V1OwnerReference | undefined {
  if (!ctx.ownerReferences) return undefined;
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, controller: true };
}
