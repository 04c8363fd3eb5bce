export type { OperatorLogger, ReconcileContext } from "./controllers/context.ts";
export { ALL_CONTROLLERS } from "./controllers/index.ts";
export * from "./crds/index.ts";
export { createKube, KubeError } from "./kube/index.ts";
export { type AppliedResource, type ApplyDeps, applyManifests } from "./local/apply.ts";
export { localSecretPath } from "./local/file-secrets.ts";
export {
  createKubeEventRecorder,
  createKubeNamespaceLister,
  createKubeSecretStore,
} from "./runtime/kube-adapters.ts";
export { createKubeDnsEndpointStore } from "./runtime/kube-dns-endpoints.ts";
export { type OperatorOptions, type RunningOperator, startOperator } from "./runtime/operator.ts";
