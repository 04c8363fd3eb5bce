/**
 * `kubectl mailroom` as a user runs it: the real kubectl (v1.34) finds bin/kubectl-mailroom on PATH as a plugin
 * and runs it against the real API server, where the operator has reconciled resources in each state.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { type Harness, openHarness } from "../../operator/src/contract/harness.ts";
import { kubectlBinary, REPO_ROOT } from "../helm/support/helm.ts";
import { apiKey, sendingDomain, webhookEndpoint } from "../support/kube-fake/fixtures.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { ensureNamespace } from "./cluster.ts";

const run = promisify(execFile);
const kube = inject("kube");
const NAMESPACE = "kubectl-plugin";
const WAIT = { timeout: 30_000, interval: 200 };
let h: Harness;
let kubectlPath: string;
let api: ApiStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let dir: string;

beforeAll(async () => {
  kubectlPath = await kubectlBinary();
  await ensureNamespace(kube, NAMESPACE);
  h = await openHarness({ kubeconfigPath: kube.adminKubeconfig, clusterNamespace: NAMESPACE });
  // The API and worker over the operator's database, delivering to a real SMTP server.
  api = await startApiStack(h.db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "true" } });
  sink = await startSmtpSink();
  worker = await startWorkerStack(h.db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "2" });
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-plugin-"));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await sink?.close();
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
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
  expect(unknown.stderr).toContain(
    `no SendingDomain declares nowhere.example.org in namespace ${NAMESPACE}, nor any ClusterSendingDomain`,
  );

  // A shared domain is cluster-wide: found from any namespace.
  const shared = h.name("shared");
  await crs.ClusterSendingDomain.create("", {
    apiVersion: "mailroom.dev/v1alpha1",
    kind: "ClusterSendingDomain",
    metadata: { name: shared },
    spec: {
      domain: `${shared}.example.com`,
      dkim: { algorithms: ["rsa-2048"] },
      reclaimPolicy: "Delete",
      allowedNamespaces: { names: [NAMESPACE] },
    },
  });
  try {
    await expect
      .poll(async () => (await crs.ClusterSendingDomain.get("", shared)).status?.records?.length ?? 0, WAIT)
      .toBeGreaterThan(2);
    const sharedRecords = await plugin("records", `${shared}.example.com`, "-n", NAMESPACE, ...kubeconfig);
    expect(sharedRecords.code).toBe(0);
    expect(sharedRecords.stdout).toContain(
      `# ClusterSendingDomain ${shared}: ${shared}.example.com, verification pending`,
    );
    // Listed across all namespaces (-A), with no namespace; not under one namespace (-n).
    const all = (await plugin("status", "-A", ...kubeconfig)).stdout;
    expect(all).toMatch(
      new RegExp(`ClusterSendingDomain\\s+${shared}\\s+False\\s+Reconciling\\s+VerificationPending`),
    );
    expect((await plugin("status", "-n", NAMESPACE, ...kubeconfig)).stdout).not.toContain(shared);
  } finally {
    await crs.ClusterSendingDomain.delete("", shared);
    // Finalized by this run's operator: nothing is left in the shared cluster.
    await expect
      .poll(
        () =>
          crs.ClusterSendingDomain.get("", shared).then(
            () => "there",
            () => "gone",
          ),
        WAIT,
      )
      .toBe("gone");
  }
});

it("test-send sends with an ApiKey's key from its Secret, and trace follows the email to delivery", async () => {
  await h.kube.customResources.ApiKey.create(NAMESPACE, apiKey("sender-key"));
  h.startOperator();
  const caFile = path.join(dir, "api-ca.crt");
  await writeFile(caFile, api.ca);
  const port = new URL(api.server.url).port;
  const apiFlags = [
    "-n",
    NAMESPACE,
    "--kubeconfig",
    kube.adminKubeconfig,
    "--url",
    `https://127.0.0.1:${port}`,
    "--tls-server-name",
    "localhost",
    "--ca-file",
    caFile,
    "--key-secret",
    "sender-key-api-key",
  ];
  let sent = { code: 1, stdout: "", stderr: "" };
  // The operator writes the key's Secret a moment after the ApiKey exists.
  await expect
    .poll(async () => {
      sent = await plugin("test-send", "--from", "ops@plugin.test", "--to", "dev@example.test", ...apiFlags);
      return sent.code;
    }, WAIT)
    .toBe(0);
  const messageId = /^queued messageId (\S+)$/m.exec(sent.stdout)?.[1] ?? "";
  expect(messageId).not.toBe("");
  const [message] = await sink.waitFor(1);
  expect(message?.envelope.to).toEqual(["dev@example.test"]);
  let traced = "";
  await expect
    .poll(async () => {
      traced = (await plugin("trace", messageId, ...apiFlags)).stdout;
      return traced;
    }, WAIT)
    .toContain(`${messageId}: delivered (from ops@plugin.test to dev@example.test)`);
  expect(traced).toMatch(/^AT\s+EVENT\s+DETAIL$/m);

  const missing = await plugin("trace", "no-such-message", ...apiFlags);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/GET \/v1\/emails\/no-such-message answered HTTP 404/);
});

it("explains itself with --help, through kubectl", async () => {
  const help = await plugin("--help");
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("Usage: kubectl mailroom");
  expect(help.stdout).toMatch(/status \[options\]/);
  expect(help.stdout).toMatch(/records \[options\] <domain>/);
  expect(help.stdout).toMatch(/test-send \[options\]/);
  expect(help.stdout).toMatch(/trace \[options\] <messageId>/);
  expect((await plugin("status", "--help")).stdout).toContain("--all-namespaces");
});
