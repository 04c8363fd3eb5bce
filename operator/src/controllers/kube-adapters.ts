/** SecretStore and EventRecorder over kube.ts, for the in-cluster operator. */
import type { CoreV1Event, V1OwnerReference, V1Secret } from "@kubernetes/client-node";
import { isKubeError, type Kube } from "../kube.ts";
import {
  type EventRecorder,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  type ObjectRef,
  type OperatorLogger,
  type SecretStore,
} from "./context.ts";

/** Secrets through the Kubernetes API; data is base64 on the wire and plain strings here. */
export function createKubeSecretStore(kube: Kube): SecretStore {
  return {
    async read(namespace, name) {
      let secret: V1Secret;
      try {
        secret = await kube.secrets.get(namespace, name);
      } catch (error) {
        if (isKubeError(error, 404)) return undefined;
        throw error;
      }
      const data = Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
      );
      return { data, managedByOperator: secret.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE };
    },
    async write(namespace, name, data, owner?: V1OwnerReference) {
      const body: V1Secret = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name,
          labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
          ...(owner ? { ownerReferences: [owner] } : {}),
        },
        type: "Opaque",
        data: Object.fromEntries(
          Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
        ),
      };
      try {
        await kube.secrets.create(namespace, body);
      } catch (error) {
        if (!isKubeError(error, 409)) throw error;
        const current = await kube.secrets.get(namespace, name);
        // PUT with the read resourceVersion: a concurrent writer makes this fail (409) and the queue retry.
        await kube.secrets.replace(namespace, name, {
          ...body,
          metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion },
        });
      }
    },
    async remove(namespace, name) {
      try {
        await kube.secrets.delete(namespace, name);
      } catch (error) {
        if (!isKubeError(error, 404)) throw error;
      }
    },
    async disown(namespace, name) {
      try {
        await kube.secrets.patch(namespace, name, { metadata: { ownerReferences: null } });
      } catch (error) {
        if (!isKubeError(error, 404)) throw error;
      }
    },
  };
}

/**
 * core/v1 Events. Recording is best effort: an Event that cannot be written (RBAC, quota) is logged and must
 * never fail the reconcile it describes.
 */
export function createKubeEventRecorder(
  kube: Kube,
  log: OperatorLogger,
  component = "mailroom-operator",
): EventRecorder {
  return {
    async record(object: ObjectRef, type, reason, message) {
      const now = new Date();
      const event: CoreV1Event = {
        metadata: { generateName: `${object.name}.` },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          namespace: object.namespace,
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
      try {
        await kube.events.create(object.namespace, event);
      } catch (error) {
        log.warn(
          { err: error, kind: object.kind, namespace: object.namespace, resource: object.name, reason },
          "could not record event",
        );
      }
    },
  };
}
