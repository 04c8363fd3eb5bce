/**
 * The operator under the chart's RBAC: the chart is installed for real, and the operator runs in process with a
 * token of the chart's ServiceAccount (TokenRequest, as the pod would mount it), not as admin. It converges all
 * four kinds (and, cluster-wide, a ClusterSendingDomain), and an installation limited by operator.watchNamespaces
 * is refused the Secrets of the namespaces it does not watch.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { parseAllDocuments } from "yaml";
import { openHarness } from "../../operator/src/contract/harness.ts";
import { clusterSendingDomainController } from "../../operator/src/controllers/cluster-sending-domain/index.ts";
import { syncObject } from "../../operator/src/controllers/sync.ts";
import { createKube, isKubeError } from "../../operator/src/kube/index.ts";
import { CHART_DIR, type Manifest } from "../helm/support/helm.ts";
import { apiKey, sendingDomain, template, webhookEndpoint } from "../support/kube-fake/fixtures.ts";
import { writeKubeconfig } from "./api.ts";
import { ensureNamespace, serviceAccountToken } from "./cluster.ts";
import { helmOnCluster } from "./helm.ts";

const kube = inject("kube");
const WAIT = { timeout: 30_000, interval: 200 };
const admin = (() => {
  const kc = new KubeConfig();
  kc.loadFromFile(kube.adminKubeconfig);
  return createKube(kc);
})();

const helm = helmOnCluster;

interface Installed {
  serviceAccount: string;
  leaseName: string;
}

/** Installs the chart (no hooks: no kubelet runs them) and reads the operator's ServiceAccount and Lease name. */
async function install(release: string, namespace: string, set: string[]): Promise<Installed> {
  await helm([
    "install",
    release,
    CHART_DIR,
    "-n",
    namespace,
    "--create-namespace",
    "--no-hooks",
    "--take-ownership",
    ...set.flatMap((s) => ["--set", s]),
  ]);
  const manifest = parseAllDocuments(await helm(["get", "manifest", release, "-n", namespace]))
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
  const deployment = manifest.find((m) => m.kind === "Deployment" && m.metadata.name.endsWith("-operator"));
  const container = deployment?.spec.template.spec.containers[0];
  const env = container?.env as { name: string; value?: string }[];
  return {
    serviceAccount: deployment?.spec.template.spec.serviceAccountName,
    leaseName: env.find((e) => e.name === "MAILROOM_OPERATOR_LEASE_NAME")?.value ?? "",
  };
}

type WithConditions = { status?: { conditions?: { type: string; status: string }[] } };
const status = (o: WithConditions, type: string) =>
  o.status?.conditions?.find((c) => c.type === type)?.status;

describe("the operator with the chart's ServiceAccount, cluster-wide (the default)", () => {
  const namespace = "mailroom-rbac";
  const apps = "mailroom-rbac-apps";
  let installed: Installed;
  beforeAll(async () => {
    await ensureNamespace(kube, apps);
    installed = await install("mr-rbac", namespace, []);
  });
  afterAll(async () => {
    await helm(["uninstall", "mr-rbac", "-n", namespace, "--no-hooks"]);
  });

  it("converges all four kinds in another namespace", async () => {
    const token = await serviceAccountToken(kube, namespace, installed.serviceAccount);
    const h = await openHarness({
      kubeconfigPath: await writeKubeconfig(kube, `sa-${namespace}`, token),
      clusterNamespace: apps,
      ownerReferences: true,
    });
    try {
      // The ClusterRole lets it list every namespace, as the default (cluster-wide) operator does.
      // Retried: right after a CRD changes (chart.test.ts upgrades one) the server answers 429 "storage is
      // (re)initializing" with Retry-After until its watch cache is rebuilt; the operator's informer backs off.
      await vi.waitFor(() => h.kube.customResources.ApiKey.list(undefined), WAIT);
      // Secrets are read one by one, never listed: the chart grants no list.
      expect(isKubeError(await h.kube.secrets.list(apps).catch((e: unknown) => e), 403)).toBe(true);
      h.startOperator({ leaseNamespace: namespace, leaseName: installed.leaseName, namespaces: [apps] });
      const crs = admin.customResources;
      await crs.ApiKey.create(apps, apiKey("key"));
      await crs.SendingDomain.create(apps, sendingDomain("domain", { domain: "mail.rbac.example" }));
      await crs.Template.create(apps, template("welcome"));
      await crs.WebhookEndpoint.create(apps, webhookEndpoint("hook"));
      await vi.waitFor(async () => {
        expect(status(await crs.ApiKey.get(apps, "key"), "Ready")).toBe("True");
        expect(status(await crs.SendingDomain.get(apps, "domain"), "Synced")).toBe("True");
        expect(status(await crs.Template.get(apps, "welcome"), "Ready")).toBe("True");
        expect(status(await crs.WebhookEndpoint.get(apps, "hook"), "Ready")).toBe("True");
      }, WAIT);
      // The Secret the operator wrote under its own identity, owned by the ApiKey.
      const secret = await admin.secrets.get(apps, "key-api-key");
      expect(secret.metadata?.ownerReferences?.[0]?.kind).toBe("ApiKey");
      for (const [kind, name] of [
        ["ApiKey", "key"],
        ["SendingDomain", "domain"],
        ["Template", "welcome"],
        ["WebhookEndpoint", "hook"],
      ] as const) {
        await admin.customResources[kind].delete(apps, name);
      }
      await vi.waitFor(async () => {
        const left = await crs.ApiKey.list(apps);
        expect(left.items).toHaveLength(0);
      }, WAIT);
    } finally {
      await h.close();
    }
  });

  it("reconciles a ClusterSendingDomain with the ClusterRole: reads namespaces, patches it and its status, finalizes it", async () => {
    const token = await serviceAccountToken(kube, namespace, installed.serviceAccount);
    const h = await openHarness({
      kubeconfigPath: await writeKubeconfig(kube, `sa-${namespace}`, token),
      clusterNamespace: apps,
    });
    const crs = h.kube.customResources.ClusterSendingDomain;
    const name = "rbac-shared";
    try {
      await vi.waitFor(() => crs.list(undefined), WAIT);
      await admin.customResources.ClusterSendingDomain.create("", {
        apiVersion: "mailroom.dev/v1alpha1",
        kind: "ClusterSendingDomain",
        metadata: { name },
        spec: {
          domain: "shared.rbac.example",
          dkim: { algorithms: ["rsa-2048"] },
          reclaimPolicy: "Delete",
          allowedNamespaces: { selector: { matchLabels: { "kubernetes.io/metadata.name": apps } } },
        },
      });
      // One reconcile as the installation would run it, under the chart's ServiceAccount.
      const instance = `${namespace}/${installed.leaseName}`;
      await syncObject(h.context, crs, clusterSendingDomainController, await crs.get("", name), instance);
      const reconciled = await crs.get("", name);
      expect(status(reconciled, "Synced")).toBe("True");
      expect(reconciled.status?.namespaces).toEqual([apps]);
      await admin.customResources.ClusterSendingDomain.delete("", name);
      await syncObject(h.context, crs, clusterSendingDomainController, await crs.get("", name), instance);
      const gone = await crs.get("", name).catch((e: unknown) => e);
      expect(isKubeError(gone, 404)).toBe(true);
    } finally {
      await h.close();
    }
  });
});

describe("a namespaced installation (operator.watchNamespaces)", () => {
  const namespace = "mailroom-ns";
  const watched = ["team-b", "team-d"];
  let installed: Installed;
  beforeAll(async () => {
    for (const ns of [...watched, "team-c"]) await ensureNamespace(kube, ns);
    installed = await install("mr-ns", namespace, [
      `operator.watchNamespaces={${watched.join(",")}}`,
      "crds.enabled=false",
    ]);
  });
  afterAll(async () => {
    await helm(["uninstall", "mr-ns", "-n", namespace, "--no-hooks"]);
  });

  it("converges resources in each watched namespace and is refused the Secrets of any other", async () => {
    const token = await serviceAccountToken(kube, namespace, installed.serviceAccount);
    const kubeconfigPath = await writeKubeconfig(kube, `sa-${namespace}`, token);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const operator = createKube(kc);
    await admin.secrets.create("team-c", { metadata: { name: "other-team" }, stringData: { k: "v" } });
    const refused = await operator.secrets.get("team-c", "other-team").catch((e: unknown) => e);
    expect(isKubeError(refused, 403)).toBe(true);
    const listAll = await operator.customResources.ApiKey.list(undefined).catch((e: unknown) => e);
    expect(isKubeError(listAll, 403)).toBe(true);

    const h = await openHarness({ kubeconfigPath, clusterNamespace: "team-b" });
    try {
      h.startOperator({ leaseNamespace: namespace, leaseName: installed.leaseName, namespaces: watched });
      for (const ns of [...watched, "team-c"])
        await admin.customResources.ApiKey.create(ns, apiKey("scoped"));
      await vi.waitFor(async () => {
        for (const ns of watched)
          expect(status(await admin.customResources.ApiKey.get(ns, "scoped"), "Ready")).toBe("True");
      }, WAIT);
      // Not watched: left untouched (no finalizer, no claim, no status).
      const outside = await admin.customResources.ApiKey.get("team-c", "scoped");
      expect(outside.metadata.finalizers ?? []).toEqual([]);
      expect(outside.status).toBeUndefined();
      for (const ns of watched) await admin.customResources.ApiKey.delete(ns, "scoped");
      await vi.waitFor(async () => {
        for (const ns of watched) expect((await admin.customResources.ApiKey.list(ns)).items).toEqual([]);
      }, WAIT);
    } finally {
      await h.close();
      await admin.customResources.ApiKey.delete("team-c", "scoped");
    }
  });
});
