/**
 * Drives one kind's controller for one object, the same for every kind: the finalizer first, then
 * reconcile, then `/status` with Ready and Synced at the object's generation, and kstatus's Reconciling and
 * Stalled derived from them (kstatus.ts).
 */
import { isMailroomError } from "@mailroom/core/errors";
import type { MailroomKind, MailroomKinds } from "../crds/index.ts";
import type { CustomResourceClient } from "../kube/index.ts";
import { type Condition, notOk, setCondition } from "./conditions.ts";
import type { ReconcileContext } from "./context.ts";
import { type KindController, type ReconcileOutcome, refOf, type StatusFields } from "./kind-controller.ts";
import { kstatusConditions } from "./kstatus.ts";

/** Our finalizer: the resource stays until its Postgres state is revoked, removed or let go. */
export const FINALIZER = "mailroom.dev/finalizer";

/**
 * The annotation naming the installation that reconciles a resource: its Lease, `<namespace>/<name>`. Two
 * releases whose operators both watch a namespace would otherwise both reconcile every resource there, each
 * replacing the other's keys (and a revoked key fails its unsent mail); the first to claim it keeps it.
 */
export const CLAIM_ANNOTATION = "mailroom.dev/reconciled-by";

/** What the work queue should do next with this object. */
export interface SyncResult {
  requeueAfterMs?: number;
}

type Resource<K extends MailroomKind> = MailroomKinds[K];

/**
 * Computes the full next status. Fields the controller no longer reports, at any depth, are set to null so
 * a merge patch removes them.
 */
export function nextStatus<K extends MailroomKind>(
  object: Resource<K>,
  outcome: ReconcileOutcome<StatusFields<K>>,
  now: Date,
): Record<string, unknown> {
  const generation = object.metadata.generation ?? 0;
  const previous = object.status as { conditions?: Condition[] } | undefined;
  let conditions = previous?.conditions ?? [];
  for (const [type, state] of Object.entries(outcome.conditions ?? {})) {
    conditions = state
      ? setCondition(conditions, type, state, generation, now)
      : conditions.filter((c) => c.type !== type);
  }
  conditions = setCondition(conditions, "Ready", outcome.ready, generation, now);
  conditions = setCondition(conditions, "Synced", outcome.synced, generation, now);
  for (const [type, state] of Object.entries(kstatusConditions(outcome.synced, outcome.ready))) {
    conditions = state
      ? setCondition(conditions, type, state, generation, now)
      : conditions.filter((c) => c.type !== type);
  }
  return withRemovals(previous, { ...outcome.fields, observedGeneration: generation, conditions });
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `next` as a merge patch over `previous`: a field gone at any depth becomes null, since a merge patch merges
 * nested objects (status.lastDelivery losing its message, say) and would otherwise keep the old field.
 */
function withRemovals(previous: unknown, next: Record<string, unknown>): Record<string, unknown> {
  const before = isPlainObject(previous) ? previous : {};
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (!(key in next)) patch[key] = null;
  for (const [key, value] of Object.entries(next)) {
    patch[key] = value === undefined ? null : isPlainObject(value) ? withRemovals(before[key], value) : value;
  }
  return patch;
}

function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, x]) => x !== null && x !== undefined)
              .sort(([x], [y]) => x.localeCompare(y))
              .map(([k, x]) => [k, canonical(x)]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Runs the finalizer, then lets go of the object. */
async function finalizeObject<K extends MailroomKind>(
  ctx: ReconcileContext,
  client: CustomResourceClient<Resource<K>>,
  controller: KindController<K>,
  object: Resource<K>,
): Promise<SyncResult> {
  const finalizers = object.metadata.finalizers ?? [];
  if (!finalizers.includes(FINALIZER)) return {};
  await controller.finalize(ctx, object);
  const { namespace = "default", name = "" } = object.metadata;
  // resourceVersion makes this a compare-and-swap: another controller's finalizer change is never lost.
  await client.patch(namespace, name, {
    metadata: {
      finalizers: finalizers.filter((f) => f !== FINALIZER),
      resourceVersion: object.metadata.resourceVersion,
    },
  });
  ctx.log.info({ kind: controller.kind, namespace, resource: name }, "finalized");
  return {};
}

/** True when another installation claimed the object, and then says so in the log. */
function claimedElsewhere<K extends MailroomKind>(
  ctx: ReconcileContext,
  controller: KindController<K>,
  object: Resource<K>,
  instance: string,
): boolean {
  const claimant = object.metadata.annotations?.[CLAIM_ANNOTATION];
  if (claimant === undefined || claimant === instance) return false;
  const { namespace, name } = object.metadata;
  ctx.log.info(
    { kind: controller.kind, namespace, resource: name, claimedBy: claimant, instance },
    "left alone: another installation reconciles this resource",
  );
  return true;
}

/**
 * Reconciles one object end to end, as installation `instance` (its Lease, `<namespace>/<name>`). Throws for
 * the queue to retry with backoff.
 */
export async function syncObject<K extends MailroomKind>(
  ctx: ReconcileContext,
  client: CustomResourceClient<Resource<K>>,
  controller: KindController<K>,
  observed: Resource<K>,
  instance: string,
): Promise<SyncResult> {
  if (claimedElsewhere(ctx, controller, observed, instance)) return {};
  if (observed.metadata.deletionTimestamp) return finalizeObject(ctx, client, controller, observed);
  const { namespace = "default", name = "" } = observed.metadata;
  let object = observed;
  const finalizers = object.metadata.finalizers ?? [];
  if (!finalizers.includes(FINALIZER) || object.metadata.annotations?.[CLAIM_ANNOTATION] !== instance) {
    // The claim and the finalizer go on before any Postgres state exists, so no state can outlive its
    // resource; resourceVersion makes the claim a compare-and-swap, so of two installations one wins (the
    // other's 409 is retried and then finds the claim).
    object = await client.patch(namespace, name, {
      metadata: {
        annotations: { [CLAIM_ANNOTATION]: instance },
        finalizers: finalizers.includes(FINALIZER) ? finalizers : [...finalizers, FINALIZER],
        resourceVersion: object.metadata.resourceVersion,
      },
    });
  }
  let outcome: ReconcileOutcome<StatusFields<K>>;
  let failure: unknown;
  try {
    outcome = await controller.reconcile(ctx, object);
  } catch (error) {
    // A non-retryable domain error (a spec core refuses) is a state to report, not a failure to retry.
    const terminal = isMailroomError(error) && !error.retryable;
    const reason = terminal ? "Invalid" : "ReconcileError";
    const message = error instanceof Error ? error.message : String(error);
    const previousReady = (object.status as { conditions?: Condition[] } | undefined)?.conditions?.find(
      (c) => c.type === "Ready",
    );
    outcome = {
      fields: stripConditions(object.status) as StatusFields<K>,
      ready: previousReady ?? notOk(reason, message),
      synced: notOk(reason, message),
    };
    await ctx.events.record(refOf(object), "Warning", reason, message);
    if (!terminal) failure = error;
  }
  const status = nextStatus(object, outcome, ctx.now());
  if (!sameJson(status, object.status)) await client.patchStatus(namespace, name, { status });
  if (failure) throw failure;
  return outcome.requeueAfterMs === undefined ? {} : { requeueAfterMs: outcome.requeueAfterMs };
}

function stripConditions(status: unknown): Record<string, unknown> {
  const { conditions: _c, observedGeneration: _g, ...fields } = (status ?? {}) as Record<string, unknown>;
  return fields;
}
