/**
 * The one module through which the operator talks to Kubernetes. It is built from a KubeConfig only, so the
 * same code runs against the in-process fake (test/support/kube-fake) and a real cluster.
 */
import {
  ApiException,
  type ConfigurationOptions,
  CoordinationV1Api,
  CoreV1Api,
  type CoreV1Event,
  CustomObjectsApi,
  type KubeConfig,
  Observable,
  PatchStrategy,
  type RequestContext,
  setHeaderOptions,
  type V1Lease,
  type V1Secret,
  Watch,
} from "@kubernetes/client-node";
import { crdDefinitionOf, GROUP, type MailroomKind, type MailroomKinds, VERSION } from "./crds/index.ts";
import {
  DNS_ENDPOINT_GROUP,
  DNS_ENDPOINT_PLURAL,
  DNS_ENDPOINT_VERSION,
  type DnsEndpoint,
} from "./external-dns.ts";

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

/** A failed API call, from the server's Status body when there is one. */
export class KubeError extends Error {
  /** HTTP status code (404, 409, 410, 422, …). */
  readonly code: number;
  /** metav1.Status reason (NotFound, Conflict, AlreadyExists, Invalid, Expired, …). */
  readonly reason: string;
  constructor(code: number, reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KubeError";
    this.code = code;
    this.reason = reason;
  }
}

/** True when `err` is a KubeError with that HTTP code. */
export function isKubeError(err: unknown, code?: number): err is KubeError {
  return err instanceof KubeError && (code === undefined || err.code === code);
}

function toKubeError(err: unknown): unknown {
  // Watch reports a non-200 answer as a plain Error carrying statusCode.
  const watchCode = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof watchCode === "number") return new KubeError(watchCode, "Unknown", String(err), { cause: err });
  if (!(err instanceof ApiException)) return err;
  let status: { reason?: string; message?: string } = {};
  try {
    status = typeof err.body === "string" ? JSON.parse(err.body) : (err.body ?? {});
  } catch {
    // Not a Status body (a proxy's HTML page, say): keep the code, lose the detail.
  }
  return new KubeError(err.code, status.reason ?? "Unknown", status.message ?? `HTTP ${err.code}`, {
    cause: err,
  });
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toKubeError(err);
  }
}

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
   * client-node's Watch aborts a stream that received no bytes for this long (its default: 30 s). A real API
   * server sends nothing on a quiet watch, so that end is treated as a clean one: resume, no relist.
   */
  watchInactivityMs?: number;
  /** Watches ask the server to end them after this many seconds times (1 + random), as client-go does. */
  minWatchTimeoutSeconds?: number;
  random?: () => number;
}

/** client-go's reflector: minWatchTimeout 5 minutes, each watch's timeoutSeconds jittered up to double. */
const MIN_WATCH_TIMEOUT_SECONDS = 300;

/** Everything the operator may do to the cluster. */
export interface Kube {
  readonly customResources: { readonly [K in MailroomKind]: CustomResourceClient<MailroomKinds[K]> };
  readonly secrets: ResourceClient<V1Secret>;
  readonly events: Pick<ResourceClient<CoreV1Event>, "create" | "list">;
  readonly leases: LeaseClient;
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

function patchOptions(patch: Patch): ConfigurationOptions {
  // client-node picks application/json-patch+json for every patch unless told otherwise.
  return setHeaderOptions(
    "Content-Type",
    Array.isArray(patch) ? PatchStrategy.JsonPatch : PatchStrategy.MergePatch,
  );
}

/** Request options carrying an AbortSignal into client-node's fetch. */
function signalOptions(signal: AbortSignal | undefined): ConfigurationOptions | undefined {
  if (!signal) return undefined;
  return {
    middleware: [
      {
        pre: (request: RequestContext) => {
          request.setSignal(signal);
          return new Observable(Promise.resolve(request));
        },
        post: (response) => new Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: "append",
  };
}

/** The DOMException client-node's Watch ends a stream with when its inactivity timer fires. */
function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === "TimeoutError";
}

function deleteBody(options: DeleteOptions = {}) {
  return {
    ...(options.resourceVersion ? { preconditions: { resourceVersion: options.resourceVersion } } : {}),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
  };
}

function listResult<T>(list: { items: T[]; metadata?: { resourceVersion?: string } }): ListResult<T> {
  return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? "" };
}

function customResourceClient<T>(
  kc: KubeConfig,
  group: string,
  version: string,
  plural: string,
  options: KubeOptions = {},
): CustomResourceClient<T> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const base = { group, version, plural };
  const watcher = new Watch(kc);
  if (options.watchInactivityMs !== undefined) {
    // Private in client-node's typings, and the only way to set it (kube.test.ts fails if it goes away).
    (watcher as unknown as { requestTimeoutMs: number }).requestTimeoutMs = options.watchInactivityMs;
  }
  const minTimeout = options.minWatchTimeoutSeconds ?? MIN_WATCH_TIMEOUT_SECONDS;
  const random = options.random ?? Math.random;
  return {
    get: (namespace, name) => call(() => api.getNamespacedCustomObject({ ...base, namespace, name })),
    list: (namespace, options = {}) =>
      call(async () =>
        listResult<T>(
          namespace === undefined
            ? await api.listClusterCustomObject({ ...base, ...options })
            : await api.listNamespacedCustomObject({ ...base, namespace, ...options }),
        ),
      ),
    create: (namespace, body) => call(() => api.createNamespacedCustomObject({ ...base, namespace, body })),
    replace: (namespace, name, body) =>
      call(() => api.replaceNamespacedCustomObject({ ...base, namespace, name, body })),
    patch: (namespace, name, body) =>
      call(() => api.patchNamespacedCustomObject({ ...base, namespace, name, body }, patchOptions(body))),
    patchStatus: (namespace, name, body) =>
      call(() =>
        api.patchNamespacedCustomObjectStatus({ ...base, namespace, name, body }, patchOptions(body)),
      ),
    delete: (namespace, name, options) =>
      call(async () => {
        await api.deleteNamespacedCustomObject({ ...base, namespace, name, body: deleteBody(options) });
      }),
    async watch(watchOptions, onEvent) {
      const { namespace, ...query } = watchOptions;
      const path = `/apis/${group}/${version}${namespace ? `/namespaces/${namespace}` : ""}/${plural}`;
      let stopped = false;
      let established = false;
      let ended = false;
      let failure: KubeError | undefined;
      let settle: (err?: unknown) => void = () => {};
      const done = new Promise<void>((resolve, reject) => {
        settle = (err) => (err && !stopped ? reject(err) : resolve());
      });
      // A watch can fail before its caller awaits `done`; that must not be an unhandled rejection.
      done.catch(() => {});
      const controller = await watcher.watch(
        path,
        {
          ...query,
          // Bookmarks keep the resourceVersion current on a quiet watch; the server ends the watch cleanly at
          // its timeout, spread so that many watches do not all resume at once.
          allowWatchBookmarks: true,
          timeoutSeconds: Math.floor(minTimeout * (1 + random())),
        },
        (type: string, object: unknown) => {
          if (type === "ERROR") {
            const status = object as { code?: number; reason?: string; message?: string };
            failure = new KubeError(
              status.code ?? 500,
              status.reason ?? "Unknown",
              status.message ?? "watch error",
            );
          } else onEvent({ type: type as WatchEvent<T>["type"], object: object as T });
        },
        (err: unknown) => {
          ended = true;
          // The inactivity timer fired on an open stream: nothing happened, which is no failure.
          if (established && !failure && isTimeout(err)) settle();
          else settle(failure ?? toKubeError(err));
        },
      );
      // Before this returns, a timeout can only be the connect timeout: a real failure.
      established = !ended;
      return {
        stop() {
          stopped = true;
          controller.abort();
          settle();
        },
        done,
      };
    },
  };
}

function mailroomClient<K extends MailroomKind>(
  kc: KubeConfig,
  kind: K,
  options: KubeOptions,
): CustomResourceClient<MailroomKinds[K]> {
  return customResourceClient(kc, GROUP, VERSION, crdDefinitionOf(kind).plural, options);
}

/** Builds the operator's Kubernetes client from a KubeConfig (in-cluster, a file, or the fake). */
export function createKube(kc: KubeConfig, options: KubeOptions = {}): Kube {
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const customObjects = kc.makeApiClient(CustomObjectsApi);
  const dnsEndpoints = customResourceClient<DnsEndpoint>(
    kc,
    DNS_ENDPOINT_GROUP,
    DNS_ENDPOINT_VERSION,
    DNS_ENDPOINT_PLURAL,
  );
  return {
    customResources: {
      ApiKey: mailroomClient(kc, "ApiKey", options),
      SendingDomain: mailroomClient(kc, "SendingDomain", options),
      Template: mailroomClient(kc, "Template", options),
      WebhookEndpoint: mailroomClient(kc, "WebhookEndpoint", options),
    },
    dnsEndpoints: {
      get: dnsEndpoints.get,
      create: dnsEndpoints.create,
      patch: dnsEndpoints.patch,
      delete: dnsEndpoints.delete,
    },
    discovery: {
      async resourcesOf(group, version) {
        try {
          const list = await call(() => customObjects.getAPIResources({ group, version }));
          return list.resources.map((r) => r.name);
        } catch (error) {
          if (isKubeError(error, 404)) return undefined;
          throw error;
        }
      },
    },
    secrets: {
      get: (namespace, name) => call(() => core.readNamespacedSecret({ namespace, name })),
      list: (namespace, options = {}) =>
        call(async () =>
          listResult(
            namespace === undefined
              ? await core.listSecretForAllNamespaces(options)
              : await core.listNamespacedSecret({ namespace, ...options }),
          ),
        ),
      create: (namespace, body) => call(() => core.createNamespacedSecret({ namespace, body })),
      replace: (namespace, name, body) => call(() => core.replaceNamespacedSecret({ namespace, name, body })),
      patch: (namespace, name, body) =>
        call(() => core.patchNamespacedSecret({ namespace, name, body }, patchOptions(body))),
      delete: (namespace, name, options) =>
        call(async () => {
          await core.deleteNamespacedSecret({ namespace, name, body: deleteBody(options) });
        }),
    },
    events: {
      create: (namespace, body) => call(() => core.createNamespacedEvent({ namespace, body })),
      list: (namespace, options = {}) =>
        call(async () =>
          listResult(
            namespace === undefined
              ? await core.listEventForAllNamespaces(options)
              : await core.listNamespacedEvent({ namespace, ...options }),
          ),
        ),
    },
    leases: {
      get: (namespace, name, o = {}) =>
        call(() => coordination.readNamespacedLease({ namespace, name }, signalOptions(o.signal))),
      list: (namespace, options = {}) =>
        call(async () =>
          listResult(
            namespace === undefined
              ? await coordination.listLeaseForAllNamespaces(options)
              : await coordination.listNamespacedLease({ namespace, ...options }),
          ),
        ),
      create: (namespace, body, o = {}) =>
        call(() => coordination.createNamespacedLease({ namespace, body }, signalOptions(o.signal))),
      replace: (namespace, name, body, o = {}) =>
        call(() => coordination.replaceNamespacedLease({ namespace, name, body }, signalOptions(o.signal))),
      patch: (namespace, name, body) =>
        call(() => coordination.patchNamespacedLease({ namespace, name, body }, patchOptions(body))),
      delete: (namespace, name, options) =>
        call(async () => {
          await coordination.deleteNamespacedLease({ namespace, name, body: deleteBody(options) });
        }),
    },
  };
}
