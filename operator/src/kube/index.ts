/**
 * The one door through which the operator talks to Kubernetes. It is built from a KubeConfig only, so the same
 * code runs against the in-process fake (test/support/kube-fake), the control plane of `make test-kubernetes`
 * and a real cluster. Nothing outside this folder imports @kubernetes/client-node's API classes.
 */
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { crdDefinitionOf, GROUP, type MailroomKind, type MailroomKinds, VERSION } from "../crds/index.ts";
import {
  DNS_ENDPOINT_GROUP,
  DNS_ENDPOINT_PLURAL,
  DNS_ENDPOINT_VERSION,
  type DnsEndpoint,
} from "../external-dns.ts";
import { eventsClient, leasesClient, namespacesClient, secretsClient } from "./built-in.ts";
import { sharingConnections } from "./connections.ts";
import { customResourceClient } from "./custom-resources.ts";
import { call, isKubeError } from "./errors.ts";
import type { CustomResourceClient, Kube, KubeOptions } from "./types.ts";

export { isKubeError, KubeError } from "./errors.ts";
export type * from "./types.ts";

function mailroomClient<K extends MailroomKind>(
  kc: KubeConfig,
  kind: K,
  options: KubeOptions,
): CustomResourceClient<MailroomKinds[K]> {
  const def = crdDefinitionOf(kind);
  return customResourceClient(kc, GROUP, VERSION, def.plural, {
    ...options,
    clusterScoped: def.scope === "Cluster",
  });
}

/** Builds the operator's Kubernetes client from a KubeConfig (in-cluster, a file, or the fake). */
export function createKube(config: KubeConfig, options: KubeOptions = {}): Kube {
  const kc = sharingConnections(config);
  const customObjects = kc.makeApiClient(CustomObjectsApi);
  const dnsEndpoints = customResourceClient<DnsEndpoint>(
    kc,
    DNS_ENDPOINT_GROUP,
    DNS_ENDPOINT_VERSION,
    DNS_ENDPOINT_PLURAL,
  );
  return {
    customResources: {
      AccountPolicy: mailroomClient(kc, "AccountPolicy", options),
      ApiKey: mailroomClient(kc, "ApiKey", options),
      ClusterSendingDomain: mailroomClient(kc, "ClusterSendingDomain", options),
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
    secrets: secretsClient(kc),
    events: eventsClient(kc),
    leases: leasesClient(kc),
    namespaces: namespacesClient(kc),
  };
}
