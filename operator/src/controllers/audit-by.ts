import type { AuditContext } from "@mailroom/core/audit";
import type { ObjectRef } from "./context.ts";

/**
 * The audit trail's actor for a change a custom resource makes (ADR 0062): `Kind/namespace/name` (`Kind/name` when cluster-scoped), so the
 * trail says which resource (and, through GitOps, which commit) changed the account.
 */
export function auditByResource(ref: Pick<ObjectRef, "kind" | "namespace" | "name">): AuditContext {
  // A cluster-scoped resource (a ClusterSendingDomain) has no namespace: `Kind/name`.
  const path = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  return { actor: { kind: "operator", id: `${ref.kind}/${path}` } };
}
