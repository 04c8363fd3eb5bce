/**
 * Template reconcile, in order: `template` (template-step.ts, owns Synced: the template and its versions),
 * then `ready` (owns Ready: a synced template is what sends get).
 */
import type { Template } from "../../crds/index.ts";
import { ok } from "../conditions.ts";
import type { StatusFields } from "../kind-controller.ts";
import { defineReconcile, readyStep } from "../steps.ts";
import { templateStep } from "./template-step.ts";

export const reconcileTemplate = defineReconcile<Template, object, StatusFields<"Template">>({
  initialState: () => ({}),
  synced: templateStep,
  steps: [],
  // Sends use the latest version, so a template in Postgres is published: nothing else to wait for.
  ready: readyStep("ready", async () => ({ condition: ok("Published") })),
});
