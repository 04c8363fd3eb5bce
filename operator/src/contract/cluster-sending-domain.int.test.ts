/**
 * ClusterSendingDomain (issue 31 item 4, ADR 0054) through the in-cluster runtime: a cluster-scoped kind
 * (no namespace in its paths), namespaces read with their labels, the grants following a label change, the
 * claim on the domain shared with SendingDomains, and deletion. On a real cluster the namespaces and the
 * resource it makes are cluster-wide, so each run names its own and deletes them at the end.
 */
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { CLUSTER_ACCOUNT, getDomain } from "@mailroom/core/domains";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiKey, sendingDomain } from "../../../test/support/kube-fake/fixtures.ts";
import type { ClusterSendingDomain } from "../crds/index.ts";
import { isKubeError } from "../kube/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 15_000, interval: 50 };
let h: Harness;
let core: CoreV1Api;
const made: string[] = [];
beforeEach(async () => {
  h = await openHarness({
    kubeconfigPath: process.env.KUBECONFIG,
    clusterNamespace: process.env.MAILROOM_CONTRACT_NAMESPACE,
  });
  const kc = h.fake ? h.fake.kubeConfig() : new KubeConfig();
  if (!h.fake) kc.loadFromFile(process.env.KUBECONFIG ?? "");
  core = kc.makeApiClient(CoreV1Api);
});
afterEach(async () => {
  for (const name of made.splice(0)) await core.deleteNamespace({ name }).catch(() => undefined);
  await h.close();
});

const shared = () => h.kube.customResources.ClusterSendingDomain;
const cond = (d: { status?: { conditions?: { type: string }[] } }, type: string) =>
  d.status?.conditions?.find((c) => c.type === type);

async function namespace(name: string, labels: Record<string, string> = {}) {
  made.push(name);
  await core.createNamespace({ body: { metadata: { name, labels } } });
}

async function grantsOf(domain: string): Promise<string[]> {
  const { rows } = await h.db.pool.query<{ account: string }>(
    `select g.account from domain_grants g join domains d on d.id = g.domain_id
     where d.account = $1 and d.name = $2 order by g.account`,
    [CLUSTER_ACCOUNT, domain],
  );
  return rows.map((r) => r.account);
}

describe("ClusterSendingDomain", () => {
  it("grants the named and the selected namespaces, follows a label change, and goes with its domain", async () => {
    const label = `mailroom.dev/contract-${h.name("l")}`;
    const [byName, byLabel, other] = [h.name("named"), h.name("labelled"), h.name("other")];
    await namespace(byLabel, { [label]: "yes" });
    await namespace(other);
    const name = h.name("shared");
    const domain = `${name}.example.com`;
    const body: ClusterSendingDomain = {
      apiVersion: "mailroom.dev/v1alpha1",
      kind: "ClusterSendingDomain",
      metadata: { name },
      spec: {
        domain,
        dkim: { algorithms: ["rsa-2048"] },
        reclaimPolicy: "Delete",
        allowedNamespaces: { names: [byName], selector: { matchLabels: { [label]: "yes" } } },
      },
    };
    const created = await shared().create("", body);
    expect(created.metadata.namespace).toBeUndefined();
    h.startOperator({ resyncMs: 200 });

    const expected = [byLabel, byName].sort();
    await vi.waitFor(async () => {
      const seen = await shared().get("", name);
      expect(seen.status?.namespaces).toEqual(expected);
      expect(cond(seen, "Synced")).toMatchObject({ status: "True" });
      expect(cond(seen, "NamespacesAllowed")).toMatchObject({ status: "True", reason: "Allowed" });
      // Not verified yet: its records are in status for the platform team to publish.
      expect(cond(seen, "Ready")).toMatchObject({ status: "False", reason: "VerificationPending" });
      expect(seen.status?.records?.length).toBeGreaterThan(0);
    }, WAIT);
    expect(await grantsOf(domain)).toEqual(expected);

    // The label goes: the namespace is no longer allowed, without any change of the resource itself.
    await core.patchNamespace({
      name: byLabel,
      body: [{ op: "remove", path: `/metadata/labels/${label.replace("/", "~1")}` }],
    });
    await vi.waitFor(async () => {
      expect((await shared().get("", name)).status?.namespaces).toEqual([byName]);
    }, WAIT);
    expect(await grantsOf(domain)).toEqual([byName]);

    await shared().delete("", name);
    await vi.waitFor(async () => {
      const gone = await shared()
        .get("", name)
        .then(
          () => false,
          (e: unknown) => isKubeError(e, 404),
        );
      expect(gone).toBe(true);
    }, WAIT);
    expect(await getDomain(h.db.pool, CLUSTER_ACCOUNT, domain)).toBeUndefined();
    expect(await grantsOf(domain)).toEqual([]);
  });

  it("reports Conflict when a SendingDomain declares the same domain first, and takes over once it goes", async () => {
    const domain = `${h.name("dup")}.example.com`;
    const first = h.name("first");
    await h.kube.customResources.SendingDomain.create(h.namespace, sendingDomain(first, { domain }));
    h.startOperator({ resyncMs: 200 });
    await vi.waitFor(async () => {
      const sd = await h.kube.customResources.SendingDomain.get(h.namespace, first);
      expect(cond(sd, "Synced")).toMatchObject({ status: "True" });
    }, WAIT);

    const name = h.name("late");
    await shared().create("", {
      apiVersion: "mailroom.dev/v1alpha1",
      kind: "ClusterSendingDomain",
      metadata: { name },
      spec: {
        domain,
        dkim: { algorithms: ["rsa-2048"] },
        reclaimPolicy: "Delete",
        allowedNamespaces: { names: ["default"] },
      },
    });
    await vi.waitFor(async () => {
      const seen = await shared().get("", name);
      expect(cond(seen, "Ready")).toMatchObject({
        status: "False",
        reason: "Conflict",
        message: `${domain} is already declared by SendingDomain ${h.namespace}/${first}`,
      });
    }, WAIT);
    expect(await getDomain(h.db.pool, CLUSTER_ACCOUNT, domain)).toBeUndefined();

    await h.kube.customResources.SendingDomain.delete(h.namespace, first);
    await vi.waitFor(async () => {
      const seen = await shared().get("", name);
      expect(cond(seen, "Synced")).toMatchObject({ status: "True" });
      expect(seen.status?.namespaces).toEqual(["default"]);
    }, 40_000);
    expect(await getDomain(h.db.pool, CLUSTER_ACCOUNT, domain)).toBeDefined();
    await shared().delete("", name);
    await vi.waitFor(
      async () => expect(await getDomain(h.db.pool, CLUSTER_ACCOUNT, domain)).toBeUndefined(),
      WAIT,
    );
  });

  it("is left alone by an installation limited to namespaces, which goes on reconciling its own kinds", async () => {
    const name = h.name("unwatched");
    await shared().create("", {
      apiVersion: "mailroom.dev/v1alpha1",
      kind: "ClusterSendingDomain",
      metadata: { name },
      spec: {
        domain: `${name}.example.com`,
        dkim: { algorithms: ["rsa-2048"] },
        reclaimPolicy: "Delete",
        allowedNamespaces: { names: ["default"] },
      },
    });
    const key = h.name("key");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(key));
    const operator = h.startOperator({ namespaces: [h.namespace] });
    await vi.waitFor(async () => {
      const seen = await h.kube.customResources.ApiKey.get(h.namespace, key);
      expect(cond(seen, "Ready")).toMatchObject({ status: "True" });
    }, WAIT);
    await operator.settled();
    const untouched = await shared().get("", name);
    expect(untouched.status).toBeUndefined();
    expect(untouched.metadata.finalizers ?? []).toEqual([]);
    await shared().delete("", name);
  });
});
