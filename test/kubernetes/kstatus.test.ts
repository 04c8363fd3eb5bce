/**
 * What GitOps tools read, judged by their own code on the real API server: each kind's status as
 * sigs.k8s.io/cli-utils' kstatus computes it (the Go checker of test/kubernetes/kstatus/, the library Flux's
 * health checks use), `kubectl wait --for=condition=…` with the real kubectl, and the condition gauge.
 */
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { type Harness, openHarness } from "../../operator/src/contract/harness.ts";
import { argoHealth, luaAvailable } from "../helm/support/argocd-health.ts";
import { kubectlBinary } from "../helm/support/helm.ts";
import { apiKey, sendingDomain, template, webhookEndpoint } from "../support/kube-fake/fixtures.ts";
import { ensureNamespace } from "./cluster.ts";

const run = promisify(execFile);
const kube = inject("kube");
const NAMESPACE = "kstatus";
const KINDS = "apikeys,templates,sendingdomains,webhookendpoints";
let h: Harness;
let checker: string;
let kubectlPath: string;

beforeAll(async () => {
  const script = path.join(import.meta.dirname, "kstatus", "build.sh");
  checker = execFileSync("bash", [script], { stdio: ["ignore", "pipe", "inherit"] })
    .toString()
    .trim()
    .split("\n")
    .at(-1) as string;
  kubectlPath = await kubectlBinary();
  if (!(await luaAvailable())) throw new Error("lua5.1 is missing: run scripts/install-system-packages.sh");
  await ensureNamespace(kube, NAMESPACE);
  h = await openHarness({ kubeconfigPath: kube.adminKubeconfig, clusterNamespace: NAMESPACE });
});
afterAll(async () => {
  await h?.close();
});

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(kubectlPath, [...args, "-n", NAMESPACE, "--kubeconfig", kube.adminKubeconfig]);
  return stdout;
}

/** kstatus's verdict on every resource labelled `test=<id>`, by name, from `kubectl get -o json`. */
async function kstatus(id: string): Promise<Record<string, { status: string; message: string }>> {
  const list = await kubectl("get", KINDS, "-l", `test=${id}`, "-o", "json");
  const child = execFile(checker, []);
  const out = new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (d) => {
      text += d;
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`kstatus exited ${code}`))));
  });
  child.stdin?.end(list);
  const lines = (await out).trim().split("\n").filter(Boolean);
  return Object.fromEntries(
    lines.map((l) => {
      const v = JSON.parse(l) as { name: string; status: string; message: string };
      return [v.name, { status: v.status, message: v.message }];
    }),
  );
}

/** The chart's Argo CD health script on every resource labelled `test=<id>`, by name. */
async function argoHealthOf(id: string): Promise<Record<string, string>> {
  const list = JSON.parse(await kubectl("get", KINDS, "-l", `test=${id}`, "-o", "json")) as {
    items: { metadata: { name: string } }[];
  };
  const verdicts = await Promise.all(
    list.items.map(async (o) => [o.metadata.name, (await argoHealth(o)).status]),
  );
  return Object.fromEntries(verdicts);
}

const labelled = <T extends { metadata: { labels?: Record<string, string> } }>(o: T, id: string): T => ({
  ...o,
  metadata: { ...o.metadata, labels: { ...o.metadata.labels, test: id } },
});

it("every kind reads Current, InProgress or Failed to kstatus as it is, and kubectl wait sees Ready", async () => {
  const id = h.name("k");
  const n = { key: `${id}-key`, tpl: `${id}-tpl`, domain: `${id}-dom`, hook: `${id}-hook`, off: `${id}-off` };
  const crs = h.kube.customResources;
  await crs.ApiKey.create(NAMESPACE, labelled(apiKey(n.key), id));
  await crs.Template.create(NAMESPACE, labelled(template(n.tpl), id));
  await crs.SendingDomain.create(
    NAMESPACE,
    labelled(sendingDomain(n.domain, { domain: `${id}.example.com` }), id),
  );
  await crs.WebhookEndpoint.create(
    NAMESPACE,
    labelled(webhookEndpoint(n.hook, { secretName: `${id}-secret` }), id),
  );
  await crs.WebhookEndpoint.create(NAMESPACE, labelled(webhookEndpoint(n.off, { enabled: false }), id));
  let operator = h.startOperator({ resyncMs: 500 });
  const wait = (condition: string, ...objects: string[]) =>
    kubectl("wait", `--for=condition=${condition}`, "--timeout=60s", ...objects);
  await wait("Ready", `apikey/${n.key}`, `template/${n.tpl}`);
  await wait("Reconciling", `sendingdomain/${n.domain}`);
  await wait("Stalled", `webhookendpoint/${n.hook}`);
  await wait("Ready", `webhookendpoint/${n.off}`);
  // A first reconcile may end in a retried error before the settled state: poll until kstatus sees that.
  const expected = {
    [n.key]: "Current",
    [n.tpl]: "Current",
    [n.domain]: "InProgress",
    [n.hook]: "Failed",
    // Disabled is what the spec asks for: Ready, kstatus Current, Argo CD Suspended.
    [n.off]: "Current",
  };
  const statuses = async () =>
    Object.fromEntries(Object.entries(await kstatus(id)).map(([name, v]) => [name, v.status]));
  await expect.poll(statuses, { timeout: 30_000, interval: 200 }).toEqual(expected);
  const verdicts = await kstatus(id);
  expect(verdicts[n.hook]?.message).toContain(`Secret ${id}-secret`);
  expect(verdicts[n.domain]?.message).not.toBe("");
  // Argo CD's verdict on the same live objects, by the chart's health script.
  expect(await argoHealthOf(id)).toEqual({
    [n.key]: "Healthy",
    [n.tpl]: "Healthy",
    [n.domain]: "Progressing",
    [n.hook]: "Degraded",
    [n.off]: "Suspended",
  });
  const metrics = await operator.registry.getSingleMetricAsString("mailroom_resource_condition");
  expect(metrics).toContain(
    `{kind="WebhookEndpoint",namespace="${NAMESPACE}",name="${n.hook}",type="Stalled",status="True"} 1`,
  );
  expect(metrics).toContain(
    `{kind="ApiKey",namespace="${NAMESPACE}",name="${n.key}",type="Ready",status="True"} 1`,
  );

  // The Secret a person creates ends the stall; the next reconcile removes Stalled and kstatus says Current.
  await kubectl(
    "create",
    "secret",
    "generic",
    `${id}-secret`,
    `--from-literal=signingSecret=whsec_${randomBytes(32).toString("base64")}`,
  );
  await wait("Ready", `webhookendpoint/${n.hook}`);
  expect((await kstatus(id))[n.hook]).toMatchObject({ status: "Current" });

  // A spec change the operator has not seen yet: observedGeneration lags, kstatus says InProgress, until it has.
  await operator.stop({ release: true });
  await crs.Template.patch(NAMESPACE, n.tpl, { spec: { text: "Bye {{name}}" } });
  expect((await kstatus(id))[n.tpl]).toMatchObject({
    status: "InProgress",
    message: expect.stringContaining("generation is 2, but latest observed generation is 1"),
  });
  expect((await argoHealthOf(id))[n.tpl]).toBe("Progressing");
  operator = h.startOperator({ resyncMs: 500 });
  await expect
    .poll(async () => (await kstatus(id))[n.tpl]?.status, { timeout: 30_000, interval: 200 })
    .toBe("Current");
});
