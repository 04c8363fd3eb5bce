/**
 * `kubectl mailroom` as a user runs it: the real kubectl (v1.34) finds bin/kubectl-mailroom on PATH as a plugin
 * and runs it against the real API server, where the operator has reconciled resources in each state.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { type Harness, openHarness } from "../../operator/src/contract/harness.ts";
import { kubectlBinary, REPO_ROOT } from "../helm/support/helm.ts";
import { apiKey, sendingDomain, webhookEndpoint } from "../support/kube-fake/fixtures.ts";
import { ensureNamespace } from "./cluster.ts";

const run = promisify(execFile);
const kube = inject("kube");
const NAMESPACE = "kubectl-plugin";
const WAIT = { timeout: 30_000, interval: 200 };
let h: Harness;
let kubectlPath: string;

beforeAll(async () => {
  kubectlPath = await kubectlBinary();
  await ensureNamespace(kube, NAMESPACE);
  h = await openHarness({ kubeconfigPath: kube.adminKubeconfig, clusterNamespace: NAMESPACE });
});
afterAll(async () => {
  await h?.close();
});

/** `kubectl mailroom …` with the plugin and the project's Node first on PATH; resolves with the exit code. */
async function plugin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    PATH: [path.join(REPO_ROOT, "cli/bin"), path.dirname(process.execPath), process.env.PATH].join(":"),
  };
  try {
    const { stdout, stderr } = await run(kubectlPath, ["mailroom", ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

it("status lists every resource with its state and reason; records prints what to publish", async () => {
  const crs = h.kube.customResources;
  const domain = `${h.name("p")}.example.com`;
  await crs.ApiKey.create(NAMESPACE, apiKey("ready-key"));
  await crs.SendingDomain.create(NAMESPACE, sendingDomain("pending-domain", { domain }));
  await crs.WebhookEndpoint.create(
    NAMESPACE,
    webhookEndpoint("stalled-hook", { secretName: "absent-secret" }),
  );
  h.startOperator();
  const kubeconfig = ["--kubeconfig", kube.adminKubeconfig];
  let status = "";
  await expect
    .poll(async () => {
      status = (await plugin("status", "-n", NAMESPACE, ...kubeconfig)).stdout;
      return status;
    }, WAIT)
    .toMatch(
      /WebhookEndpoint\s+kubectl-plugin\s+stalled-hook\s+False\s+Stalled\s+SecretNotFound\s+Secret absent-secret/,
    );
  const lines = status.trim().split("\n");
  expect(lines[0]).toMatch(/^KIND\s+NAMESPACE\s+NAME\s+READY\s+STATE\s+REASON\s+MESSAGE$/);
  expect(status).toMatch(
    /ApiKey\s+kubectl-plugin\s+ready-key\s+True\s+Current\s+KeyActive\s+key \S+ is active/,
  );
  expect(status).toMatch(
    /SendingDomain\s+kubectl-plugin\s+pending-domain\s+False\s+Reconciling\s+VerificationPending/,
  );

  const records = await plugin("records", domain, "-A", ...kubeconfig);
  expect(records.code).toBe(0);
  const published = (await crs.SendingDomain.get(NAMESPACE, "pending-domain")).status?.records ?? [];
  expect(published.length).toBeGreaterThan(2);
  expect(records.stdout).toContain(
    `# SendingDomain ${NAMESPACE}/pending-domain: ${domain}, verification pending`,
  );
  for (const r of published) {
    expect(records.stdout).toMatch(new RegExp(`${r.type}\\s+${r.name.replaceAll(".", "\\.")}\\s+\\S+\\s+`));
    expect(records.stdout).toContain(r.value);
  }

  const unknown = await plugin("records", "nowhere.example.org", "-n", NAMESPACE, ...kubeconfig);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain(`no SendingDomain declares nowhere.example.org in namespace ${NAMESPACE}`);
});

it("explains itself with --help, through kubectl", async () => {
  const help = await plugin("--help");
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("Usage: kubectl mailroom");
  expect(help.stdout).toMatch(/status \[options\]/);
  expect(help.stdout).toMatch(/records \[options\] <domain>/);
  expect((await plugin("status", "--help")).stdout).toContain("--all-namespaces");
});
