/**
 * The chart installed for real: `helm install`, `helm upgrade` (a changed value and a CRD change) and `helm
 * uninstall` against the control plane, with the third-party CRDs of every kind the chart can render installed
 * first. helm itself creates each object, so an install that succeeds is every object accepted server-side
 * (schema, CEL, admission). Hooks (the migrations Job, the `helm test` Pods) cannot run without a kubelet: they
 * are sent with `dryRun=All` instead, which the server validates and admits but does not store.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { CHART_DIR, type Manifest, runHelm } from "../helm/support/helm.ts";
import { apiRequest } from "./api.ts";
import { applyCrdFiles, ensureNamespace, objectPath } from "./cluster.ts";
import { helmOnCluster } from "./helm.ts";

const kube = inject("kube");
const VALUES_DIR = path.join(CHART_DIR, "ci");
const CNPG_CLUSTER_CRD = path.join(
  import.meta.dirname,
  "../helm/fixtures/cloudnative-pg/postgresql.cnpg.io_clusters.yaml",
);

const helm = helmOnCluster;

function documents(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null && typeof m === "object" && "kind" in m);
}

async function exists(object: Manifest, namespace: string): Promise<number> {
  return (await apiRequest(kube, "GET", await objectPath(kube, object, namespace))).status;
}

/** Creates each hook with dryRun=All: the server validates and admits it, and stores nothing. */
async function dryRunHooks(release: string, namespace: string): Promise<Manifest[]> {
  const hooks = documents(await helm(["get", "hooks", release, "-n", namespace]));
  // A pod naming a ServiceAccount is refused unless the account exists, and a dry run stores nothing: the hook's
  // own ServiceAccounts are created for real first (as helm does, by weight), and deleted after.
  const accounts = hooks.filter((h) => h.kind === "ServiceAccount");
  for (const account of accounts) {
    const target = account.metadata.namespace ?? namespace;
    const res = await apiRequest(kube, "POST", `/api/v1/namespaces/${target}/serviceaccounts`, account);
    expect(res.status, `ServiceAccount/${account.metadata.name}`).toBe(201);
  }
  for (const hook of hooks) {
    if (hook.kind === "ServiceAccount") continue;
    // A hook may live in another namespace: `helm test`'s ApiKey and Role go where a namespaced operator looks.
    const target = hook.metadata.namespace ?? namespace;
    const collection = await objectPath(kube, { ...hook, metadata: { ...hook.metadata, name: "" } }, target);
    const res = await apiRequest(kube, "POST", `${collection}?dryRun=All`, {
      ...hook,
      metadata: { ...hook.metadata, namespace: target },
    });
    expect(res.status, `${hook.kind}/${hook.metadata.name}: ${JSON.stringify(res.body)}`).toBe(201);
  }
  for (const account of accounts) {
    const target = account.metadata.namespace ?? namespace;
    await apiRequest(kube, "DELETE", `/api/v1/namespaces/${target}/serviceaccounts/${account.metadata.name}`);
  }
  return hooks;
}

let short = 0;
const releaseOf = (label: string) => ({ release: `mr-${label}`, namespace: `chart-${label}-${++short}` });

beforeAll(async () => {
  const dir = kube.thirdPartyCrds;
  const files = (await readdir(dir)).filter((f) => f.endsWith(".yaml")).map((f) => path.join(dir, f));
  // CloudNativePG's Cluster (postgresql.cloudnative.enabled, issue 28): the CRD is a committed test fixture.
  await applyCrdFiles(kube, [...files, CNPG_CLUSTER_CRD]);
  // ci/existing-secret-values.yaml watches team-a: its Role and RoleBinding go there.
  await ensureNamespace(kube, "team-a");
});

const valueFiles = ["", ...(await readdir(VALUES_DIR)).filter((f) => f.endsWith("-values.yaml"))];

describe("helm install and uninstall on a real API server", () => {
  it.each(valueFiles)("installs every object of %s (defaults when empty), then uninstalls", async (file) => {
    const { release, namespace } = releaseOf(file ? file.replace(/-values\.yaml$/, "") : "defaults");
    const values = file ? ["-f", path.join(VALUES_DIR, file)] : [];
    // The CRDs exist already (the contract suite's): a release adopts them, as one would after a manual apply.
    await helm([
      "install",
      release,
      CHART_DIR,
      "-n",
      namespace,
      "--create-namespace",
      "--no-hooks",
      "--take-ownership",
      ...values,
    ]);
    const manifest = documents(await helm(["get", "manifest", release, "-n", namespace]));
    expect(manifest.length).toBeGreaterThan(5);
    for (const object of manifest)
      expect(await exists(object, namespace), `${object.kind}/${object.metadata.name}`).toBe(200);
    await dryRunHooks(release, namespace);
    await helm(["uninstall", release, "-n", namespace, "--no-hooks"]);
    for (const object of manifest) {
      const kept = object.metadata.annotations?.["helm.sh/resource-policy"] === "keep";
      expect(await exists(object, namespace), `${object.kind}/${object.metadata.name}`).toBe(
        kept ? 200 : 404,
      );
    }
  });
});

describe("helm upgrade on a real API server", () => {
  let chartCopy: string;
  afterAll(async () => {
    if (chartCopy) await rm(chartCopy, { recursive: true, force: true });
  });

  it("applies a changed value and a changed CRD", async () => {
    const { release, namespace } = releaseOf("upgrade");
    await helm([
      "install",
      release,
      CHART_DIR,
      "-n",
      namespace,
      "--create-namespace",
      "--no-hooks",
      "--take-ownership",
    ]);
    chartCopy = await mkdtemp(path.join(os.tmpdir(), "mailroom-chart-"));
    await cp(CHART_DIR, chartCopy, { recursive: true });
    // The next version's CRD: a new printer column on ApiKey.
    const crdFile = path.join(chartCopy, "files/crds/apikeys.mailroom.dev.yaml");
    const crd = parse(await readFile(crdFile, "utf8"));
    crd.spec.versions[0].additionalPrinterColumns.push({
      name: "Upgraded",
      type: "string",
      jsonPath: ".spec.secretName",
    });
    await writeFile(crdFile, stringify(crd));
    // helm 4 applies server-side: the CRDs' fields belong to whoever applied them first (here the suite's
    // setup), and changing one is a conflict until the release forces it, as after any adoption.
    const upgrade = ["upgrade", release, chartCopy, "-n", namespace, "--no-hooks", "--set", "api.replicas=3"];
    const refused = await runHelm([...upgrade, "--kubeconfig", kube.adminKubeconfig]);
    expect(refused.stderr).toMatch(/conflict.*apikeys\.mailroom\.dev/);
    await helm([...upgrade, "--force-conflicts"]);
    const deployment = documents(await helm(["get", "manifest", release, "-n", namespace])).find(
      (m) => m.kind === "Deployment" && m.metadata.name.endsWith("-api"),
    ) as Manifest;
    const live = await apiRequest(kube, "GET", await objectPath(kube, deployment, namespace));
    expect((live.body as { spec: { replicas: number } }).spec.replicas).toBe(3);
    const liveCrd = await apiRequest(
      kube,
      "GET",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/apikeys.mailroom.dev",
    );
    const columns = (
      liveCrd.body as { spec: { versions: { additionalPrinterColumns: { name: string }[] }[] } }
    ).spec.versions[0]?.additionalPrinterColumns.map((c) => c.name);
    expect(columns).toContain("Upgraded");
    // The changed CRD's storage is rebuilt: until then the server answers 429 (storage is (re)initializing).
    await vi.waitFor(
      async () => {
        const list = await apiRequest(kube, "GET", "/apis/mailroom.dev/v1alpha1/apikeys");
        expect(list.status).toBe(200);
      },
      { timeout: 60_000, interval: 250 },
    );
    const history = JSON.parse(await helm(["history", release, "-n", namespace, "-o", "json"]));
    expect(history.map((r: { status: string }) => r.status)).toEqual(["superseded", "failed", "deployed"]);
    await helm(["uninstall", release, "-n", namespace, "--no-hooks"]);
  });
});
