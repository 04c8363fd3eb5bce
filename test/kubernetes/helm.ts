/** helm against the control plane, as its admin; a failure throws with helm's own message. */
import { inject } from "vitest";
import { runHelm } from "../helm/support/helm.ts";

export async function helmOnCluster(args: string[]): Promise<string> {
  const result = await runHelm([...args, "--kubeconfig", inject("kube").adminKubeconfig]);
  if (result.code !== 0)
    throw new Error(`helm ${args.join(" ")} failed (exit ${result.code}):\n${result.stderr}`);
  return result.stdout;
}
