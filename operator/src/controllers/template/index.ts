import type { KindController } from "../kind-controller.ts";
import { finalizeTemplate } from "./finalizer.ts";
import { reconcileTemplate } from "./reconcile.ts";

/** The Template controller. */
export const templateController: KindController<"Template"> = {
  kind: "Template",
  reconcile: reconcileTemplate,
  finalize: finalizeTemplate,
};
