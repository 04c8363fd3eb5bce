/** SecretStore, EventRecorder and NamespaceLister over kube/index.ts, for the in-cluster operator. */
import type { CoreV1Event, V1Secret } from "@kubernetes/client-node";
import {
  type EventRecorder,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  type NamespaceLister,
  type ObjectRef,
  type OperatorLogger,
  OWNER_ANNOTATION,
  ownerKeyOf,
  SecretConflictError,
  type SecretData,
  type SecretStore,
  secretConflict,
} from "../controllers/context.ts";
import { isKubeError, type Kube } from "../kube/index.ts";

/** Secrets through the Kubernetes API; data is base64 on the wire and plain strings here. */
export function createKubeSecretStore(kube: Kube): SecretStore {
  async function get(namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await kube.secrets.get(namespace, name);
    } catch (error) {
      if (isKubeError(error, 404)) return undefined;
      throw error;
    }
  }
  const view = (secret: V1Secret): SecretData => ({
    data: Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
    ),
    managedByOperator: secret.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE,
    owner: secret.metadata?.annotations?.[OWNER_ANNOTATION],
    ownerUids: (secret.metadata?.ownerReferences ?? []).map((r) => r.uid),
  });

  return {
    async read(namespace, name) {
      const secret = await get(namespace, name);
      return secret && view(secret);
    },
    async write(namespace, name, data, owner) {
      const body: V1Secret = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name,
          labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
          annotations: { [OWNER_ANNOTATION]: ownerKeyOf(owner.ref) },
          ...(owner.ownerReference ? { ownerReferences: [owner.ownerReference] } : {}),
        },
        type: "Opaque",
        data: Object.fromEntries(
          Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
        ),
      };
      try {
        await kube.secrets.create(namespace, body);
        return;
      } catch (error) {
        if (!isKubeError(error, 409)) throw error;
      }
      const current = await kube.secrets.get(namespace, name);
      // Checked again here: the Secret may have appeared since the caller read it (two resources racing).
      const conflict = secretConflict(name, view(current), owner.ref);
      if (conflict) throw new SecretConflictError(conflict);
      const meta = current.metadata ?? {};
      if ((current.type ?? "Opaque") !== "Opaque" || current.immutable) {
        // type and immutable data cannot be updated (422, forever): replace the object instead. The
        // preconditions make this a compare-and-swap, as the PUT below is.
        await kube.secrets.delete(namespace, name, { resourceVersion: meta.resourceVersion });
        await kube.secrets.create(namespace, body);
        return;
      }
      // PUT with the read resourceVersion: a concurrent writer makes this fail (409) and the queue retry.
      await kube.secrets.replace(namespace, name, {
        ...body,
        metadata: { ...body.metadata, resourceVersion: meta.resourceVersion },
      });
    },
    async remove(namespace, name) {
      try {
        await kube.secrets.delete(namespace, name);
      } catch (error) {
        if (!isKubeError(error, 404)) throw error;
      }
    },
    async setOwnerReference(namespace, name, ownerReference) {
      try {
        await kube.secrets.patch(namespace, name, {
          metadata: { ownerReferences: ownerReference ? [ownerReference] : null },
        });
      } catch (error) {
        if (!isKubeError(error, 404)) throw error;
      }
    },
  };
}

/** client-go's EventCorrelator: a repeat within this window increments the first Event's count. */
const AGGREGATE_WINDOW_MS = 10 * 60_000;
/** Distinct Events remembered for aggregation; the oldest is forgotten first. */
const AGGREGATE_CACHE_SIZE = 4_096;

interface RecordedEvent {
  name: string;
  count: number;
  firstAt: number;
}

/**
 * core/v1 Events. A repeat of an Event (same object, type, reason, message) within ten minutes increments
 * the count and lastTimestamp of the one already written, as client-go's recorder does, instead of writing
 * another: a reconcile failing every few seconds would otherwise fill the namespace with Events. Recording is
 * best effort: an Event that cannot be written (RBAC, quota) is logged and must never fail the reconcile.
 */
export function createKubeEventRecorder(
  kube: Kube,
  log: OperatorLogger,
  component = "mailroom-operator",
  clock: () => Date = () => new Date(),
): EventRecorder {
  const recent = new Map<string, RecordedEvent>();

  async function repeat(namespace: string, seen: RecordedEvent, now: Date): Promise<boolean> {
    try {
      await kube.events.patch(namespace, seen.name, { count: seen.count + 1, lastTimestamp: now });
      seen.count += 1;
      return true;
    } catch (error) {
      // Gone (expired by the server's TTL, or deleted): write a new one.
      if (isKubeError(error, 404)) return false;
      throw error;
    }
  }

  return {
    async record(object: ObjectRef, type, reason, message) {
      const now = clock();
      const key = JSON.stringify([
        object.uid,
        object.namespace,
        object.kind,
        object.name,
        type,
        reason,
        message,
      ]);
      const seen = recent.get(key);
      try {
        // A cluster-scoped object's Events go to "default", as client-go's recorder puts them.
        const namespace = object.namespace || "default";
        if (
          seen &&
          now.getTime() - seen.firstAt < AGGREGATE_WINDOW_MS &&
          (await repeat(namespace, seen, now))
        )
          return;
        const event: CoreV1Event = {
          metadata: { generateName: `${object.name}.` },
          involvedObject: {
            apiVersion: object.apiVersion,
            kind: object.kind,
            ...(object.namespace ? { namespace: object.namespace } : {}),
            name: object.name,
            uid: object.uid,
            ...(object.resourceVersion ? { resourceVersion: object.resourceVersion } : {}),
          },
          type,
          reason,
          message,
          source: { component },
          reportingComponent: component,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        };
        const created = await kube.events.create(namespace, event);
        recent.delete(key);
        recent.set(key, { name: created.metadata?.name ?? "", count: 1, firstAt: now.getTime() });
        if (recent.size > AGGREGATE_CACHE_SIZE) recent.delete(recent.keys().next().value as string);
      } catch (error) {
        log.warn(
          { err: error, kind: object.kind, namespace: object.namespace, resource: object.name, reason },
          "could not record event",
        );
      }
    },
  };
}

/** The cluster's namespaces with their labels, read at each ClusterSendingDomain reconcile. */
export function createKubeNamespaceLister(kube: Kube): NamespaceLister {
  return {
    async list() {
      const { items } = await kube.namespaces.list();
      return items.map((n) => ({ name: n.metadata?.name ?? "", labels: n.metadata?.labels ?? {} }));
    },
  };
}
