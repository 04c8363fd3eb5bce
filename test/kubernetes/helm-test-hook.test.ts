/**
 * The chart's `helm test` hook when the operator does not watch the release's namespace (operator.watchNamespaces):
 * its objects applied to the real API server, the real operator writing the key's Secret where it watches, and the
 * hook's script run as its pod would, with a real token of the hook's ServiceAccount reading that one Secret under
 * the hook's Role, then checking the real API. No kubelet runs the pod itself.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { stringify } from "yaml";
import { type Harness, openHarness } from "../../operator/src/contract/harness.ts";
import { findManifest, kubectlBinary, type Manifest, renderChart } from "../helm/support/helm.ts";
import { type ApiStack, startApiStack } from "../support/stack.ts";
import { apiRequest } from "./api.ts";
import { ensureNamespace, serviceAccountToken } from "./cluster.ts";

const run = promisify(execFile);
const kube = inject("kube");
const RELEASE_NS = "hook-release";
const ACCOUNT_NS = "hook-account";
const FULL = "mr-mailroom";
let h: Harness;
let api: ApiStack;
let dir: string;

beforeAll(async () => {
  await ensureNamespace(kube, RELEASE_NS);
  await ensureNamespace(kube, ACCOUNT_NS);
  h = await openHarness({ kubeconfigPath: kube.adminKubeconfig, clusterNamespace: ACCOUNT_NS });
  api = await startApiStack(h.db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "false" } });
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-hook-"));
});
afterAll(async () => {
  await api?.close();
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("reads the key the operator wrote in the watched namespace through its Role, and passes", async () => {
  const manifests = (
    await renderChart({ namespace: RELEASE_NS, set: { "operator.watchNamespaces[0]": ACCOUNT_NS } })
  ).filter((m) => m.metadata.annotations?.["helm.sh/hook"] === "test");
  const apiKey = findManifest(manifests, "ApiKey", `${FULL}-helm-test`);
  expect(apiKey.metadata.namespace).toBe(ACCOUNT_NS);
  // Every hook object, the pod included (it stays Pending: no kubelet), accepted by the real API server.
  const file = path.join(dir, "hooks.yaml");
  await writeFile(file, manifests.map((m: Manifest) => stringify(m)).join("---\n"));
  await run(await kubectlBinary(), [
    "apply",
    "--server-side",
    "-f",
    file,
    "--kubeconfig",
    kube.adminKubeconfig,
  ]);

  h.startOperator({ namespaces: [ACCOUNT_NS] });
  const token = await serviceAccountToken(kube, RELEASE_NS, `${FULL}-helm-test`);
  const account = path.join(dir, "serviceaccount");
  await mkdir(account, { recursive: true });
  await writeFile(path.join(account, "token"), token);
  await writeFile(path.join(account, "ca.crt"), kube.ca);
  const caFile = path.join(dir, "mailroom-ca.crt");
  await writeFile(caFile, api.ca);
  const scriptFile = path.join(dir, "send-email.mjs");
  await writeFile(
    scriptFile,
    findManifest(manifests, "ConfigMap", `${FULL}-helm-test-script`).data["send-email.mjs"],
  );
  const pod = findManifest(manifests, "Pod", `${FULL}-helm-test-send`);
  expect(pod.spec.serviceAccountName).toBe(`${FULL}-helm-test`);
  const podEnv = Object.fromEntries(
    (pod.spec.containers[0].env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]),
  );
  const server = new URL(kube.url);
  const { stdout, stderr } = await run(process.execPath, [scriptFile], {
    timeout: 120_000,
    env: {
      PATH: process.env.PATH ?? "",
      ...podEnv,
      MAILROOM_URL: api.server.url,
      NODE_EXTRA_CA_CERTS: caFile,
      KUBERNETES_SERVICE_HOST: server.hostname,
      KUBERNETES_SERVICE_PORT: server.port,
      TEST_SERVICE_ACCOUNT_DIR: account,
      TEST_RETRY_DELAY_MS: "200",
    },
  });
  expect(stderr).toBe("");
  expect(stdout).toContain("a send from an unverified domain is refused (422)");
  expect(stdout).toContain("helm test: OK (no email sent");

  // The token reads that one Secret and nothing else.
  const as = { ...kube, adminToken: token };
  expect((await apiRequest(as, "GET", `/api/v1/namespaces/${ACCOUNT_NS}/secrets`)).status).toBe(403);
  expect(
    (await apiRequest(as, "GET", `/api/v1/namespaces/${RELEASE_NS}/secrets/${FULL}-helm-test-api-key`))
      .status,
  ).toBe(403);
  expect(
    (await apiRequest(as, "GET", `/api/v1/namespaces/${ACCOUNT_NS}/secrets/${FULL}-helm-test-api-key`))
      .status,
  ).toBe(200);
});
