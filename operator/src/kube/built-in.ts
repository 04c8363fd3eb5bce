/** Clients of the built-in kinds the operator uses: Secrets, Events, Leases and (read only) Namespaces. */
import { CoordinationV1Api, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { call } from "./errors.ts";
import { deleteBody, listResult, patchOptions, signalOptions } from "./request-options.ts";
import type { Kube } from "./types.ts";

export function secretsClient(kc: KubeConfig): Kube["secrets"] {
  const core = kc.makeApiClient(CoreV1Api);
  return {
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
  };
}

export function eventsClient(kc: KubeConfig): Kube["events"] {
  const core = kc.makeApiClient(CoreV1Api);
  return {
    create: (namespace, body) => call(() => core.createNamespacedEvent({ namespace, body })),
    patch: (namespace, name, body) =>
      call(() => core.patchNamespacedEvent({ namespace, name, body }, patchOptions(body))),
    list: (namespace, options = {}) =>
      call(async () =>
        listResult(
          namespace === undefined
            ? await core.listEventForAllNamespaces(options)
            : await core.listNamespacedEvent({ namespace, ...options }),
        ),
      ),
  };
}

export function leasesClient(kc: KubeConfig): Kube["leases"] {
  const coordination = kc.makeApiClient(CoordinationV1Api);
  return {
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
  };
}

export function namespacesClient(kc: KubeConfig): Kube["namespaces"] {
  const core = kc.makeApiClient(CoreV1Api);
  return { list: (options = {}) => call(async () => listResult(await core.listNamespace(options))) };
}
