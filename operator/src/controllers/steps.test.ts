import { describe, expect, it } from "vitest";
import type { SendingDomain } from "../crds/index.ts";
import { type ConditionState, notOk, ok } from "./conditions.ts";
import type { ReconcileContext } from "./context.ts";
import { defineReconcile, type ReconcileSteps, readyStep, type Step, type StepResult } from "./steps.ts";
import { nextStatus } from "./sync.ts";

type Fields = { a?: string; b?: string; c?: string };
interface Trace {
  ran: string[];
  blocked?: ConditionState | undefined;
}

// The runner hands the context to the steps and uses nothing of it itself.
const ctx = {} as ReconcileContext;

function step(name: string, condition: string, result: StepResult<Fields>): Step<unknown, Trace, Fields> {
  return {
    name,
    condition,
    run: async (_ctx, _resource, trace) => {
      trace.ran.push(name);
      return result;
    },
  };
}

let trace: Trace = { ran: [] };

function plan(
  synced: StepResult<Fields>,
  steps: Step<unknown, Trace, Fields>[],
  ready: { condition: ConditionState; requeueAfterMs?: number } = { condition: ok("Works") },
): ReconcileSteps<unknown, Trace, Fields> {
  return {
    initialState: () => {
      trace = { ran: [] };
      return trace;
    },
    synced: step("store", "Synced", synced),
    steps,
    ready: {
      name: "ready",
      run: async (c, resource, state, blocked) => {
        state.ran.push("ready");
        state.blocked = blocked;
        return readyStep<unknown, Trace, Fields>("ready", async () => ({
          ...ready,
          fields: { c: "ready" },
        })).run(c, resource, state, blocked);
      },
    },
  };
}

describe("reconcile steps", () => {
  it("runs Synced first, then the kind's steps in order, then Ready; each result lands on its own condition", async () => {
    const reconcile = defineReconcile(
      plan({ next: "continue", condition: ok("Synced"), fields: { a: "store", b: "store" } }, [
        step("dns", "DNSPublished", { next: "continue", condition: ok("Published"), fields: { b: "dns" } }),
        step("tls", "Certified", { next: "continue", condition: notOk("NoCert", "none yet") }),
      ]),
    );
    const outcome = await reconcile(ctx, {});
    expect(trace.ran).toEqual(["store", "dns", "tls", "ready"]);
    expect(trace.blocked).toBeUndefined();
    expect(outcome).toEqual({
      fields: { a: "store", b: "dns", c: "ready" },
      synced: ok("Synced"),
      ready: ok("Works"),
      conditions: { DNSPublished: ok("Published"), Certified: notOk("NoCert", "none yet") },
    });
  });

  it("stops at a step that ends the run: later steps do not run, Ready hears why, their conditions are left out", async () => {
    const conflict = notOk("Conflict", "held by another resource");
    const reconcile = defineReconcile(
      plan({ next: "stop", condition: conflict }, [
        step("dns", "DNSPublished", { next: "continue", condition: ok("Published") }),
      ]),
    );
    const outcome = await reconcile(ctx, {});
    expect(trace.ran).toEqual(["store", "ready"]);
    expect(trace.blocked).toEqual(conflict);
    expect(outcome.synced).toEqual(conflict);
    expect(outcome.conditions).toEqual({});
    expect(outcome.requeueAfterMs).toBeUndefined();
  });

  it("a requeue ends the run and asks to look again; with Ready's own requeue, the sooner wins", async () => {
    const missing = notOk("SecretNotFound", "no Secret");
    const reconcile = defineReconcile(
      plan(
        { next: "continue", condition: ok("Synced") },
        [
          step("secret", "SecretFound", { next: "requeue", afterMs: 30_000, condition: missing }),
          step("dns", "DNSPublished", { next: "continue", condition: ok("Published") }),
        ],
        { condition: notOk("Pending", "later"), requeueAfterMs: 60_000 },
      ),
    );
    const outcome = await reconcile(ctx, {});
    expect(trace.ran).toEqual(["store", "secret", "ready"]);
    expect(trace.blocked).toEqual(missing);
    expect(outcome.conditions).toEqual({ SecretFound: missing });
    expect(outcome.requeueAfterMs).toBe(30_000);
  });

  it("readyStep: Ready repeats the condition that ended the run, and judges only a run that went through", async () => {
    const judged: string[] = [];
    const ready = readyStep<unknown, object, Fields>("ready", async () => {
      judged.push("judge");
      return { condition: ok("Works") };
    });
    const blocked = notOk("Conflict", "held elsewhere");
    expect(await ready.run(ctx, {}, {}, blocked)).toEqual({ condition: blocked });
    expect(judged).toEqual([]);
    expect(await ready.run(ctx, {}, {}, undefined)).toEqual({ condition: ok("Works") });
    expect(judged).toEqual(["judge"]);
  });

  it("refuses a plan in which a condition has two owners, or Synced is not owned by the first step", () => {
    const published = step("dns", "DNSPublished", { next: "continue", condition: ok("Published") });
    const synced: StepResult<Fields> = { next: "continue", condition: ok("Synced") };
    expect(() => defineReconcile(plan(synced, [published, { ...published, name: "dns-again" }]))).toThrow(
      "steps dns and dns-again both own condition DNSPublished",
    );
    expect(() =>
      defineReconcile(plan(synced, [step("x", "Ready", { next: "continue", condition: ok("R") })])),
    ).toThrow("step x may not own Ready");
    expect(() =>
      defineReconcile(plan(synced, [step("x", "Synced", { next: "continue", condition: ok("S") })])),
    ).toThrow("step x may not own Synced");
    expect(() => defineReconcile({ ...plan(synced, []), synced: published })).toThrow(
      "step dns runs first and must own Synced, not DNSPublished",
    );
  });

  it("leaves a condition in status untouched when its step did not run, and removes it when its step says null", async () => {
    const published = {
      type: "DNSPublished",
      status: "True" as const,
      observedGeneration: 1,
      lastTransitionTime: "2026-01-01T00:00:00Z",
      reason: "Published",
      message: "DNSEndpoint d-dns holds the 3 records for external-dns",
    };
    const object: SendingDomain = {
      apiVersion: "mailroom.dev/v1alpha1",
      kind: "SendingDomain",
      metadata: { name: "d", namespace: "shop", generation: 2 },
      spec: {
        domain: "example.com",
        dkim: { algorithms: ["rsa-2048"] },
        reclaimPolicy: "Delete",
        publishDNS: true,
      },
      status: { observedGeneration: 1, conditions: [published] },
    };
    const now = new Date("2026-02-01T00:00:00Z");
    const stopped = await defineReconcile(
      plan({ next: "stop", condition: notOk("Conflict", "held") }, [
        step("dns", "DNSPublished", { next: "continue", condition: notOk("DNSEndpointConflict", "x") }),
      ]),
    )(ctx, {});
    const afterStop = nextStatus(object, stopped, now).conditions as (typeof published)[];
    expect(afterStop.find((c) => c.type === "DNSPublished")).toEqual(published);
    expect(afterStop.find((c) => c.type === "Synced")).toMatchObject({
      reason: "Conflict",
      observedGeneration: 2,
    });
    expect(afterStop.find((c) => c.type === "Ready")).toMatchObject({
      reason: "Conflict",
      observedGeneration: 2,
    });

    const removed = await defineReconcile(
      plan({ next: "continue", condition: ok("Synced") }, [
        step("dns", "DNSPublished", { next: "continue", condition: null }),
      ]),
    )(ctx, {});
    const afterRemoval = nextStatus(object, removed, now).conditions as (typeof published)[];
    expect(afterRemoval.map((c) => c.type)).toEqual(["Ready", "Synced"]);
  });
});
