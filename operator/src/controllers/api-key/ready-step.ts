/** The ApiKey step that owns Ready: only an active key is usable; look again when it expires. */
import type { ApiKey } from "../../crds/index.ts";
import type { StatusFields } from "../kind-controller.ts";
import { readyStep } from "../steps.ts";
import type { ApiKeyState } from "./key-step.ts";
import { apiKeyReady, apiKeyRequeue } from "./status.ts";

export const apiKeyReadyStep = readyStep<ApiKey, ApiKeyState, StatusFields<"ApiKey">>(
  "ready",
  async (ctx, _key, { record }) => {
    if (!record) throw new Error("the key step continued without a key");
    const now = ctx.now();
    const requeueAfterMs = apiKeyRequeue(record, now);
    return {
      condition: apiKeyReady(record, now),
      ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
    };
  },
);
