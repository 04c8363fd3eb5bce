import type { KindController } from "../kind-controller.ts";
import { finalizeSendingDomain } from "./finalizer.ts";
import { reconcileSendingDomain } from "./reconcile.ts";

/** The SendingDomain controller. */
export const sendingDomainController: KindController<"SendingDomain"> = {
  kind: "SendingDomain",
  reconcile: reconcileSendingDomain,
  finalize: finalizeSendingDomain,
};
