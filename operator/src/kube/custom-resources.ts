/** Clients of custom resource kinds (Mailroom's four, external-dns's DNSEndpoint): CRUD, /status and watch. */
import { CustomObjectsApi, type KubeConfig, Watch } from "@kubernetes/client-node";
import { call } from "./errors.ts";
import { deleteBody, listResult, patchOptions } from "./request-options.ts";
import type { CustomResourceClient, KubeOptions } from "./types.ts";
import { openWatch } from "./watch.ts";

/** client-go's reflector: minWatchTimeout 5 minutes, each watch's timeoutSeconds jittered up to double. */
const MIN_WATCH_TIMEOUT_SECONDS = 300;
/**
 * client-node's own default (30 s) cuts a quiet watch before the server's first bookmark (about one a minute,
 * the watch cache's bookmark frequency), so the resourceVersion never advanced on a quiet watch. Above two
 * bookmark intervals, a quiet but healthy watch is never cut; a dead connection still is.
 */
const DEFAULT_WATCH_INACTIVITY_MS = 150_000;

/**
 * A kind's client. A cluster-scoped kind (`clusterScoped`) takes the same calls and ignores their namespace, so
 * the driver (controllers/sync.ts) and the runtime stay one code path for both scopes.
 */
export function customResourceClient<T>(
  kc: KubeConfig,
  group: string,
  version: string,
  plural: string,
  options: KubeOptions & { clusterScoped?: boolean } = {},
): CustomResourceClient<T> {
  if (options.clusterScoped) return clusterResourceClient(kc, group, version, plural, options);
  const api = kc.makeApiClient(CustomObjectsApi);
  const base = { group, version, plural };
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
    watch: watchOf<T>(kc, `/apis/${group}/${version}`, plural, options),
  };
}

/** The watch of a kind, in one namespace or across all (a cluster-scoped kind's `namespace` is undefined). */
function watchOf<T>(
  kc: KubeConfig,
  groupVersionPath: string,
  plural: string,
  options: KubeOptions,
): CustomResourceClient<T>["watch"] {
  const watcher = new Watch(kc);
  // Private in client-node's typings, and the only way to set it (index.test.ts fails if it goes away).
  (watcher as unknown as { requestTimeoutMs: number }).requestTimeoutMs =
    options.watchInactivityMs ?? DEFAULT_WATCH_INACTIVITY_MS;
  const minTimeout = options.minWatchTimeoutSeconds ?? MIN_WATCH_TIMEOUT_SECONDS;
  const random = options.random ?? Math.random;
  return ({ namespace, ...query }, onEvent) => {
    const path = `${groupVersionPath}${namespace ? `/namespaces/${namespace}` : ""}/${plural}`;
    // The server ends the watch cleanly at its timeout, spread so that many watches do not all resume at once.
    const timeoutSeconds = Math.floor(minTimeout * (1 + random()));
    return openWatch(watcher, path, { ...query, timeoutSeconds }, onEvent);
  };
}

/** A cluster-scoped kind's client: the namespace arguments are ignored (see customResourceClient). */
function clusterResourceClient<T>(
  kc: KubeConfig,
  group: string,
  version: string,
  plural: string,
  options: KubeOptions,
): CustomResourceClient<T> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const base = { group, version, plural };
  const watch = watchOf<T>(kc, `/apis/${group}/${version}`, plural, options);
  return {
    get: (_namespace, name) => call(() => api.getClusterCustomObject({ ...base, name })),
    list: (_namespace, options = {}) =>
      call(async () => listResult<T>(await api.listClusterCustomObject({ ...base, ...options }))),
    create: (_namespace, body) => call(() => api.createClusterCustomObject({ ...base, body })),
    replace: (_namespace, name, body) => call(() => api.replaceClusterCustomObject({ ...base, name, body })),
    patch: (_namespace, name, body) =>
      call(() => api.patchClusterCustomObject({ ...base, name, body }, patchOptions(body))),
    patchStatus: (_namespace, name, body) =>
      call(() => api.patchClusterCustomObjectStatus({ ...base, name, body }, patchOptions(body))),
    delete: (_namespace, name, options) =>
      call(async () => {
        await api.deleteClusterCustomObject({ ...base, name, body: deleteBody(options) });
      }),
    watch: ({ namespace: _namespace, ...query }, onEvent) => watch(query, onEvent),
  };
}
