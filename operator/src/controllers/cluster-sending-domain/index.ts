import type { KindController } from "../kind-controller.ts";
import { finalizeSendingDomain } from "../sending-domain/finalizer.ts";
import { reconcileClusterSendingDomain } from "./reconcile.ts";

/** The ClusterSendingDomain controller: SendingDomain's finalizer (Delete or Retain) applies as it is. */
export const clusterSendingDomainController: KindController<"ClusterSendingDomain"> = {
  kind: "ClusterSendingDomain",
  reconcile: reconcileClusterSendingDomain,
  finalize: finalizeSendingDomain,
};
