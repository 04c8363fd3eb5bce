/** The operator's view of the API server: the calls it may make, with their options and results. */
import type { CoreV1Event, V1Lease, V1Namespace, V1Secret } from "@kubernetes/client-node";
import type { MailroomKind, MailroomKinds } from "../crds/index.ts";
import type { DnsEndpoint } from "../external-dns.ts";

/** A JSON merge patch (RFC 7386): an object; null deletes a field. */
export type MergePatch = { [key: string]: unknown };
/** One RFC 6902 JSON patch operation. */
export interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}
/** An object is sent as a merge patch, an array as a JSON patch. */
export type Patch = MergePatch | JsonPatchOperation[];

/** A list and the resourceVersion to watch from. */
export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

/** Options narrowing a list or watch. */
export interface ListOptions {
  labelSelector?: string;
}

/** Preconditions and cascading for a delete. */
export interface DeleteOptions {
  /** Delete only if the object is still at this resourceVersion (409 otherwise). */
  resourceVersion?: string;
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
}

/** A watch event; ERROR events end the watch with a KubeError instead. */
export interface WatchEvent<T> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  object: T;
}

/** A running watch. `done` settles when the stream ends: resolved on a clean end or stop(), else rejected. */
export interface WatchHandle {
  stop(): void;
  readonly done: Promise<void>;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborting it ends the request (a Lease call racing the renew deadline). */
  signal?: AbortSignal;
}

/** Namespaced CRUD of one kind. */
export interface ResourceClient<T> {
  get(namespace: string, name: string): Promise<T>;
  /** Lists one namespace, or every namespace when `namespace` is undefined. */
  list(namespace: string | undefined, options?: ListOptions): Promise<ListResult<T>>;
  create(namespace: string, object: T): Promise<T>;
  /** PUT: fails with 409 when `object.metadata.resourceVersion` is stale. */
  replace(namespace: string, name: string, object: T): Promise<T>;
  patch(namespace: string, name: string, patch: Patch): Promise<T>;
  delete(namespace: string, name: string, options?: DeleteOptions): Promise<void>;
}

/** A custom resource kind: CRUD, the /status subresource and watch. */
export interface CustomResourceClient<T> extends ResourceClient<T> {
  patchStatus(namespace: string, name: string, patch: Patch): Promise<T>;
  /** Watches from `resourceVersion` (a 410 ends it with KubeError code 410: relist and watch again). */
  watch(
    options: ListOptions & { namespace?: string; resourceVersion?: string },
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<WatchHandle>;
}

/** Leases, whose calls leader election bounds by its renew deadline. */
export interface LeaseClient extends Pick<ResourceClient<V1Lease>, "list" | "patch" | "delete"> {
  get(namespace: string, name: string, options?: CallOptions): Promise<V1Lease>;
  create(namespace: string, object: V1Lease, options?: CallOptions): Promise<V1Lease>;
  replace(namespace: string, name: string, object: V1Lease, options?: CallOptions): Promise<V1Lease>;
}

/** How watches are made; the defaults are client-go's reflector's. */
export interface KubeOptions {
  /**
   * client-node's Watch aborts a stream that received no bytes for this long. Default 150 s, above two of the
   * server's bookmark intervals (client-node's own 30 s cut every quiet watch before its first bookmark). Such
   * an end is treated as a clean one: resume, no relist.
   */
  watchInactivityMs?: number;
  /** Watches ask the server to end them after this many seconds times (1 + random), as client-go does. */
  minWatchTimeoutSeconds?: number;
  random?: () => number;
}

/** Everything the operator may do to the cluster. */
export interface Kube {
  readonly customResources: { readonly [K in MailroomKind]: CustomResourceClient<MailroomKinds[K]> };
  readonly secrets: ResourceClient<V1Secret>;
  readonly events: Pick<ResourceClient<CoreV1Event>, "create" | "list" | "patch">;
  readonly leases: LeaseClient;
  /** Namespaces and their labels (a ClusterSendingDomain's allowedNamespaces.selector); read only. */
  readonly namespaces: { list(options?: ListOptions): Promise<ListResult<V1Namespace>> };
  /** external-dns DNSEndpoints (SendingDomain spec.publishDNS); 404 for all of it when the CRD is absent. */
  readonly dnsEndpoints: Pick<ResourceClient<DnsEndpoint>, "get" | "create" | "patch" | "delete">;
  readonly discovery: {
    /**
     * The resources (plurals, subresources as `plural/sub`) the API server serves in a group version, or
     * undefined when it serves none (404). A GET of /apis/<group>/<version>: discovery needs no RBAC rule.
     */
    resourcesOf(group: string, version: string): Promise<string[] | undefined>;
  };
}
