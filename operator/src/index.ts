export * from "./crds/index.ts";
export { createKube, KubeError } from "./kube.ts";
