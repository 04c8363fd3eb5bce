/**
 * The shape every kind's controller has: reconcile converges (a list of steps, steps.ts), finalize releases;
 * the driver (sync.ts) does the rest.
 */
import { CLUSTER_ACCOUNT } from "@mailroom/core/domains";
import type { MailroomKind, MailroomKinds } from "../crds/index.ts";
import type { ConditionState } from "./conditions.ts";
import type { ObjectRef, ReconcileContext } from "./context.ts";

/** What one reconcile found: the kind's own status fields and the two conditions. */
export interface ReconcileOutcome<Fields> {
  /** Kind-specific status fields; a field left out is removed from status. */
  fields: Fields;
  /** Does the thing work (a usable key, a verified domain…)? */
  ready: ConditionState;
  /** Does Postgres match the spec? */
  synced: ConditionState;
  /**
   * The kind's own conditions besides Ready and Synced (SendingDomain's DNSPublished), as the steps that ran
   * set them: null removes one; a type left out (its step did not run) stays as it is in status.
   */
  conditions?: Readonly<Record<string, ConditionState | null>>;
  /** Look again after this long even without a change (a pending verification, a conflict to re-check). */
  requeueAfterMs?: number;
}

type StatusOf<K extends MailroomKind> = NonNullable<MailroomKinds[K]["status"]>;
/** Status fields a controller owns: everything but the conditions and observedGeneration the driver writes. */
export type StatusFields<K extends MailroomKind> = Omit<StatusOf<K>, "conditions" | "observedGeneration">;

export interface KindController<K extends MailroomKind> {
  readonly kind: K;
  reconcile(ctx: ReconcileContext, object: MailroomKinds[K]): Promise<ReconcileOutcome<StatusFields<K>>>;
  /** Runs once the resource is being deleted, before the finalizer comes off; must be idempotent. */
  finalize(ctx: ReconcileContext, object: MailroomKinds[K]): Promise<void>;
}

/**
 * The account of a resource is its namespace (DESIGN.md §2); a ClusterSendingDomain's domain belongs to the
 * reserved account no namespace can be (ADR 0054).
 */
export function accountOf(object: { kind?: string; metadata: { namespace?: string | undefined } }): string {
  if (object.kind === "ClusterSendingDomain") return CLUSTER_ACCOUNT;
  return object.metadata.namespace ?? "default";
}

/** An ObjectRef for Events and ownerReferences; a cluster-scoped object's namespace is "". */
export function refOf(object: {
  apiVersion: string;
  kind: string;
  metadata: { namespace?: string; name?: string; uid?: string; resourceVersion?: string };
}): ObjectRef {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.kind === "ClusterSendingDomain" ? "" : (object.metadata.namespace ?? "default"),
    name: object.metadata.name ?? "",
    uid: object.metadata.uid ?? "",
    resourceVersion: object.metadata.resourceVersion,
  };
}
