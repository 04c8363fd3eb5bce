/**
 * AccountPolicy reconcile, in order: `policy` (policy-step.ts, owns Synced: the settings on the account's
 * row), `paused` (paused-step.ts, owns SendingPaused, and a resume asked by annotation), then `ready`: ready
 * while the account sends. It looks again every minute, so the guard's pause shows within a minute or two.
 */
import type { AccountPolicy } from "../../crds/index.ts";
import { notOk, ok } from "../conditions.ts";
import type { StatusFields } from "../kind-controller.ts";
import { defineReconcile, readyStep } from "../steps.ts";
import { pausedStep } from "./paused-step.ts";
import { policyStep } from "./policy-step.ts";
import type { PolicyState } from "./state.ts";

const LOOK_AGAIN_MS = 60_000;

export const reconcileAccountPolicy = defineReconcile<
  AccountPolicy,
  PolicyState,
  StatusFields<"AccountPolicy">
>({
  initialState: () => ({}),
  synced: policyStep,
  steps: [pausedStep],
  ready: readyStep("ready", async (_ctx, _resource, state) => ({
    condition: state.paused ? notOk("SendingPaused", state.paused) : ok("Applied"),
    requeueAfterMs: LOOK_AGAIN_MS,
  })),
});
