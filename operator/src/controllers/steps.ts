/**
 * A reconcile as an ordered list of named steps, after cert-manager: each step owns exactly one status
 * condition and is the only code that sets it, so "who says Synced=False?" has one answer per kind.
 *
 * - The Synced step runs first: it converges Postgres (and what Postgres needs, such as the Secret of an
 *   ApiKey) with the spec, and every later step works from what it found.
 * - The kind's own steps follow in order (SendingDomain's DNSPublished).
 * - The Ready step runs last, always: Ready is the summary `kubectl wait` and the Reason column read. When a
 *   step ended the run it hears that step's condition, since nothing works until that is fixed.
 *
 * A step continues, ends the run (stop: wait for the next change of the resource), or ends it and asks to
 * look again after a while (requeue: something outside the resource may change, a claim released, say).
 * The conditions of steps that did not run stay in status as they were. A step that throws is a failed
 * reconcile, not a state: the driver (sync.ts) reports it on Synced and the queue retries it with backoff.
 */
import type { ConditionState } from "./conditions.ts";
import type { ReconcileContext } from "./context.ts";
import type { ReconcileOutcome } from "./kind-controller.ts";

/** A step's verdict on its condition, the status fields it reports, and what comes next. */
export type StepResult<Fields> =
  | {
      next: "continue";
      /** null: the condition no longer applies (DNSPublished with publishDNS off) and leaves status. */
      condition: ConditionState | null;
      fields?: Fields;
    }
  | (({ next: "stop" } | { next: "requeue"; afterMs: number }) & {
      /** A step that ends the run says why on its own condition. */
      condition: ConditionState;
      fields?: Fields;
    });

/** The Ready step's verdict: it is last, so it only chooses whether to look again later. */
export interface ReadyResult<Fields> {
  condition: ConditionState;
  fields?: Fields;
  requeueAfterMs?: number;
}

export interface Step<Resource, State, Fields> {
  /** Names the step in errors and docs, e.g. "domain" or "dns-endpoint". */
  readonly name: string;
  /** The condition type this step, and only this step, sets. */
  readonly condition: string;
  run(ctx: ReconcileContext, resource: Resource, state: State): Promise<StepResult<Fields>>;
}

export interface ReadyStep<Resource, State, Fields> {
  readonly name: string;
  /** `blocked` is the condition of the step that ended the run, if one did. */
  run(
    ctx: ReconcileContext,
    resource: Resource,
    state: State,
    blocked: ConditionState | undefined,
  ): Promise<ReadyResult<Fields>>;
}

/** One kind's reconcile: a fresh state per run, and its steps in order. */
export interface ReconcileSteps<Resource, State, Fields> {
  /** What earlier steps found (the row, say), for later ones; new for every run. */
  initialState(): State;
  /** Owns Synced; runs first. */
  readonly synced: Step<Resource, State, Fields>;
  /** The kind's own conditions, in order. */
  readonly steps: readonly Step<Resource, State, Fields>[];
  /** Owns Ready; runs last, also after a step ended the run. */
  readonly ready: ReadyStep<Resource, State, Fields>;
}

// Reconciling and Stalled (kstatus) are derived from Synced and Ready by the driver (kstatus.ts), after the steps.
const SUMMARY = new Set(["Ready", "Synced", "Reconciling", "Stalled"]);

/**
 * Checks that each condition has exactly one owner, and returns the reconcile function of `plan`.
 * Throws at module load for a plan that breaks the rule, so a misdeclared kind fails every test.
 */
export function defineReconcile<Resource, State, Fields extends object>(
  plan: ReconcileSteps<Resource, State, Fields>,
): (ctx: ReconcileContext, resource: Resource) => Promise<ReconcileOutcome<Fields>> {
  if (plan.synced.condition !== "Synced") {
    throw new Error(`step ${plan.synced.name} runs first and must own Synced, not ${plan.synced.condition}`);
  }
  const owners = new Map<string, string>();
  for (const step of plan.steps) {
    if (SUMMARY.has(step.condition)) {
      throw new Error(
        `step ${step.name} may not own ${step.condition}: the first step owns Synced, the last Ready, ` +
          "and the driver derives Reconciling and Stalled",
      );
    }
    const owner = owners.get(step.condition);
    if (owner) throw new Error(`steps ${owner} and ${step.name} both own condition ${step.condition}`);
    owners.set(step.condition, step.name);
  }
  return (ctx, resource) => runSteps(plan, ctx, resource);
}

type Ending<Fields> = Exclude<StepResult<Fields>, { next: "continue" }>;

async function runSteps<Resource, State, Fields extends object>(
  plan: ReconcileSteps<Resource, State, Fields>,
  ctx: ReconcileContext,
  resource: Resource,
): Promise<ReconcileOutcome<Fields>> {
  const state = plan.initialState();
  let fields = {} as Fields;
  const conditions: Record<string, ConditionState | null> = {};
  const first = await plan.synced.run(ctx, resource, state);
  if (!first.condition) throw new Error(`step ${plan.synced.name} must report Synced, not remove it`);
  let ended: Ending<Fields> | undefined;
  const take = (result: StepResult<Fields>): boolean => {
    if (result.fields) fields = { ...fields, ...result.fields };
    if (result.next !== "continue") ended = result;
    return result.next === "continue";
  };
  if (take(first)) {
    for (const step of plan.steps) {
      const result = await step.run(ctx, resource, state);
      conditions[step.condition] = result.condition;
      if (!take(result)) break;
    }
  }
  const ending = ended as Ending<Fields> | undefined;
  const ready = await plan.ready.run(ctx, resource, state, ending?.condition);
  if (ready.fields) fields = { ...fields, ...ready.fields };
  const requeues = [ending?.next === "requeue" ? ending.afterMs : undefined, ready.requeueAfterMs].filter(
    (ms) => ms !== undefined,
  );
  return {
    fields,
    ready: ready.condition,
    synced: first.condition,
    conditions,
    ...(requeues.length === 0 ? {} : { requeueAfterMs: Math.min(...requeues) }),
  };
}

/**
 * The Ready step of a kind: when a step ended the run, Ready is that step's condition (a conflict, a
 * missing Secret: nothing works until it is fixed); otherwise `judge` says whether the resource works.
 */
export function readyStep<Resource, State, Fields>(
  name: string,
  judge: (ctx: ReconcileContext, resource: Resource, state: State) => Promise<ReadyResult<Fields>>,
): ReadyStep<Resource, State, Fields> {
  return {
    name,
    run: async (ctx, resource, state, blocked) =>
      blocked ? { condition: blocked } : judge(ctx, resource, state),
  };
}
