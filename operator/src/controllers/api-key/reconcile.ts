/**
 * ApiKey reconcile, in order: `key` (key-step.ts, owns Synced: the Postgres key and its Secret), then
 * `ready` (ready-step.ts, owns Ready: the key's state, and a look again when it expires).
 */
import type { ApiKey } from "../../crds/index.ts";
import type { StatusFields } from "../kind-controller.ts";
import { defineReconcile } from "../steps.ts";
import { type ApiKeyState, keyStep } from "./key-step.ts";
import { apiKeyReadyStep } from "./ready-step.ts";

export const reconcileApiKey = defineReconcile<ApiKey, ApiKeyState, StatusFields<"ApiKey">>({
  initialState: () => ({}),
  synced: keyStep,
  steps: [],
  ready: apiKeyReadyStep,
});
