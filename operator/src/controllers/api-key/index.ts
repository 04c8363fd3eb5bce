import type { KindController } from "../kind-controller.ts";
import { finalizeApiKey } from "./finalizer.ts";
import { reconcileApiKey } from "./reconcile.ts";

/** The ApiKey controller. */
export const apiKeyController: KindController<"ApiKey"> = {
  kind: "ApiKey",
  reconcile: reconcileApiKey,
  finalize: finalizeApiKey,
};
