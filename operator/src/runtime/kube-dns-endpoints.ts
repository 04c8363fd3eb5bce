/**
 * DnsEndpointStore over kube/index.ts. Whether the API server serves external-dns's DNSEndpoint is asked through
 * discovery and cached, so a reconcile costs no extra request: a "served" answer holds until a DNSEndpoint
 * call answers 404 for the whole resource (the CRD was removed); a "not served" one for `absentRecheckMs`, so
 * installing external-dns later is noticed without restarting the operator.
 */

import {
  controllerReferenceTo,
  type DnsEndpointStore,
  type DnsPublishResult,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  type ObjectRef,
} from "../controllers/context.ts";
import {
  DNS_ENDPOINT_API_VERSION,
  DNS_ENDPOINT_GROUP,
  DNS_ENDPOINT_PLURAL,
  DNS_ENDPOINT_RESOURCE,
  DNS_ENDPOINT_VERSION,
  type DnsEndpoint,
  type DnsEndpointRecord,
} from "../external-dns.ts";
import { isKubeError, type Kube } from "../kube/index.ts";

/** How long "the CRD is not served" is believed before discovery is asked again. */
export const DNS_DISCOVERY_ABSENT_RECHECK_MS = 60_000;

export interface KubeDnsEndpointStoreOptions {
  absentRecheckMs?: number;
  /** A millisecond clock for the cache (tests). */
  clock?: () => number;
}

const UNSERVED: DnsPublishResult = {
  result: "unavailable",
  message:
    `the API server does not serve ${DNS_ENDPOINT_RESOURCE} (${DNS_ENDPOINT_API_VERSION}): install ` +
    "external-dns's DNSEndpoint CRD to have the records published, or publish status.records yourself",
};

function controlledBy(object: DnsEndpoint, owner: ObjectRef): boolean {
  return (object.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === owner.uid);
}

/**
 * Why `object` is not the operator's to write for `owner`, or undefined when it is. The name is derived
 * from the owner's, so a labelled object without a controller was written for this resource under
 * reclaimPolicy Retain, or for a deleted one of the same name that let it go: it is adopted.
 */
function foreignTo(object: DnsEndpoint, owner: ObjectRef): string | undefined {
  if (object.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY_VALUE) {
    return "was not written by the Mailroom operator";
  }
  const controller = object.metadata.ownerReferences?.find((r) => r.controller);
  if (controller && controller.uid !== owner.uid) return `belongs to ${controller.kind} ${controller.name}`;
  return undefined;
}

// Field by field: the API server may return the keys of each endpoint in another order than they were sent.
function sameRecords(stored: readonly DnsEndpointRecord[] | undefined, wanted: readonly DnsEndpointRecord[]) {
  const key = (r: DnsEndpointRecord | undefined) =>
    JSON.stringify(r && [r.dnsName, r.recordType, r.recordTTL ?? 0, r.targets ?? []]);
  const list = stored ?? [];
  return list.length === wanted.length && list.every((r, i) => key(r) === key(wanted[i]));
}

export function createKubeDnsEndpointStore(
  kube: Kube,
  options: KubeDnsEndpointStoreOptions = {},
): DnsEndpointStore {
  const absentRecheckMs = options.absentRecheckMs ?? DNS_DISCOVERY_ABSENT_RECHECK_MS;
  const clock = options.clock ?? Date.now;
  const api = kube.dnsEndpoints;
  let known: { served: boolean; at: number } | undefined;
  let asking: Promise<boolean> | undefined;

  async function served(): Promise<boolean> {
    if (known && (known.served || clock() - known.at < absentRecheckMs)) return known.served;
    // Concurrent reconciles share one discovery request.
    asking ??= kube.discovery
      .resourcesOf(DNS_ENDPOINT_GROUP, DNS_ENDPOINT_VERSION)
      .then((resources) => {
        const served = resources?.includes(DNS_ENDPOINT_PLURAL) ?? false;
        known = { served, at: clock() };
        return served;
      })
      .finally(() => {
        asking = undefined;
      });
    return asking;
  }

  /** A 404 from a write means the object, or the whole resource, is gone: ask discovery again next time. */
  async function writing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isKubeError(error, 404)) known = undefined;
      throw error;
    }
  }

  async function read(namespace: string, name: string): Promise<DnsEndpoint | undefined> {
    try {
      return await api.get(namespace, name);
    } catch (error) {
      if (isKubeError(error, 404)) return undefined;
      throw error;
    }
  }

  return {
    async publish(owner, name, records, { ownerReference }) {
      const ownerReferences = ownerReference ? [controllerReferenceTo(owner)] : [];
      if (!(await served())) return UNSERVED;
      const current = await read(owner.namespace, name);
      if (!current) {
        const body: DnsEndpoint = {
          apiVersion: DNS_ENDPOINT_API_VERSION,
          kind: "DNSEndpoint",
          metadata: {
            name,
            labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
            ...(ownerReference ? { ownerReferences } : {}),
          },
          spec: { endpoints: [...records] },
        };
        try {
          await writing(() => api.create(owner.namespace, body));
        } catch (error) {
          // Creating into a collection that 404s: the CRD went away after discovery was asked.
          if (isKubeError(error, 404) && !(await served())) return UNSERVED;
          throw error;
        }
        return { result: "published", changed: true };
      }
      const foreign = foreignTo(current, owner);
      if (foreign) {
        return {
          result: "conflict",
          message: `DNSEndpoint ${name} already exists and ${foreign}; refusing to overwrite it`,
        };
      }
      if (controlledBy(current, owner) === ownerReference && sameRecords(current.spec?.endpoints, records)) {
        return { result: "published", changed: false };
      }
      const others = (current.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.uid);
      const all = [...others, ...ownerReferences];
      // resourceVersion makes the merge patch a compare-and-swap; a concurrent writer fails it with 409.
      await writing(() =>
        api.patch(owner.namespace, name, {
          metadata: {
            resourceVersion: current.metadata.resourceVersion,
            labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
            ownerReferences: all.length > 0 ? all : null,
          },
          spec: { endpoints: [...records] },
        }),
      );
      return { result: "published", changed: true };
    },

    async unpublish(owner, name) {
      if (!(await served())) return;
      const current = await read(owner.namespace, name);
      if (!current || foreignTo(current, owner)) return;
      try {
        await writing(() =>
          api.delete(owner.namespace, name, { resourceVersion: current.metadata.resourceVersion }),
        );
      } catch (error) {
        if (!isKubeError(error, 404)) throw error;
      }
    },

    async disown(owner, name) {
      if (!(await served())) return;
      const current = await read(owner.namespace, name);
      if (!current || !controlledBy(current, owner)) return;
      const others = (current.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.uid);
      await writing(() =>
        api.patch(owner.namespace, name, {
          metadata: {
            resourceVersion: current.metadata.resourceVersion,
            ownerReferences: others.length > 0 ? others : null,
          },
        }),
      );
    },
  };
}
