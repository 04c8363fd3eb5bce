import { execFileSync } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { applyCrdFiles, ensureNamespace, waitForGarbageCollector } from "./cluster.ts";
import { startControlPlane } from "./control-plane.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The control plane of this run (test/kubernetes/control-plane.ts). */
    kube: { url: string; ca: string; adminToken: string; adminKubeconfig: string; thirdPartyCrds: string };
  }
}

const ROOT = path.join(import.meta.dirname, "..", "..");
export const CONTRACT_NAMESPACE = "mailroom-contract";

/** The directory of the third-party CRDs the chart can render (test/kubernetes/build/third-party-crds.sh). */
function thirdPartyCrdDir(): string {
  const script = path.join(import.meta.dirname, "build", "third-party-crds.sh");
  const out = execFileSync("bash", [script], { stdio: ["ignore", "pipe", "inherit"] });
  return out.toString().trim().split("\n").at(-1) ?? "";
}

/**
 * One control plane for the run, with Mailroom's CRDs and external-dns's DNSEndpoint CRD installed; the operator
 * contract suite finds it through KUBECONFIG (set here, inherited by the test workers) in `mailroom-contract`.
 */
export default async function setup(project: TestProject) {
  const started = Date.now();
  const plane = await startControlPlane();
  const crdDir = thirdPartyCrdDir();
  const mailroomCrds = (await readdir(path.join(ROOT, "crds"))).map((f) => path.join(ROOT, "crds", f));
  await applyCrdFiles(plane, [...mailroomCrds, path.join(crdDir, "dnsendpoints.externaldns.k8s.io.yaml")]);
  await ensureNamespace(plane, CONTRACT_NAMESPACE);
  await waitForGarbageCollector(plane, CONTRACT_NAMESPACE);
  process.env.KUBECONFIG = plane.adminKubeconfig;
  process.env.MAILROOM_CONTRACT_NAMESPACE = CONTRACT_NAMESPACE;
  project.provide("kube", {
    url: plane.url,
    ca: plane.ca,
    adminToken: plane.adminToken,
    adminKubeconfig: plane.adminKubeconfig,
    thirdPartyCrds: crdDir,
  });
  process.stdout.write(
    `› kube: kube-apiserver ${plane.version} (etcd, kube-controller-manager) ready at ${plane.url} in ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
  return () => plane.stop();
}
