/**
 * SendingDomain contract beyond the basics of kinds.int.test.ts: spec.dkim.selector, and spec.publishDNS
 * with external-dns's DNSEndpoint CRD served or not. The publishDNS tests install and remove that CRD with
 * the fake's installCrd()/uninstallCrd() and are skipped on a real cluster.
 */
import { deleteDomain, getDomain } from "@mailroom/core/domains";
import type { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dnsEndpointCrd, sendingDomain } from "../../../test/support/kube-fake/fixtures.ts";
import type { SendingDomain } from "../crds/index.ts";
import type { DnsEndpoint } from "../external-dns.ts";
import { isKubeError } from "../kube/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 10_000, interval: 50 };
const onCluster = Boolean(process.env.KUBECONFIG);
const DNS_CRD = "dnsendpoints.externaldns.k8s.io";
let h: Harness;
beforeEach(async () => {
  h = await openHarness({
    kubeconfigPath: process.env.KUBECONFIG,
    clusterNamespace: process.env.MAILROOM_CONTRACT_NAMESPACE,
    dnsDiscoveryAbsentRecheckMs: 200,
  });
});
afterEach(async () => {
  await h.close();
});

const domains = () => h.kube.customResources.SendingDomain;
const cond = (d: SendingDomain, type: string) => d.status?.conditions?.find((c) => c.type === type);
const get = (name: string) => domains().get(h.namespace, name);
const gone = (promise: Promise<unknown>) =>
  promise.then(
    () => false,
    (e: unknown) => isKubeError(e, 404),
  );

/** Reconciles of SendingDomains run so far. */
async function reconciles(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric("mailroom_operator_reconciles_total")?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.kind === "SendingDomain")
    .reduce((sum, v) => sum + v.value, 0);
}
/** Waits until `count` more reconciles (resyncs, here) have run. */
async function afterReconciles(registry: Registry, count: number) {
  const start = await reconciles(registry);
  await vi.waitFor(
    async () => expect(await reconciles(registry)).toBeGreaterThanOrEqual(start + count),
    WAIT,
  );
}
const requestsTo = (suffix: string, methods: string[]) =>
  (h.fake?.requests ?? []).filter((r) => methods.includes(r.method) && r.path.endsWith(suffix)).length;
const discoveries = () => requestsTo("/apis/externaldns.k8s.io/v1alpha1", ["GET"]);

/** The character-strings of a zone-file TXT target: `"a" "b"` -> ["a", "b"]. */
function characterStrings(target: string): string[] {
  const strings = [...target.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) =>
    (m[1] ?? "").replace(/\\(.)/g, "$1"),
  );
  expect(strings.map((s) => `"${s}"`).join(" ")).toBe(target);
  return strings;
}

describe.skipIf(onCluster)("SendingDomain spec.publishDNS (needs the fake's installCrd)", () => {
  it("publishes the records as one owned DNSEndpoint, writes it only on change, and deletes it when publishDNS turns false", async () => {
    h.fake?.installCrd(dnsEndpointCrd());
    const operator = h.startOperator({ resyncMs: 200 });
    const name = h.name("pub");
    const dnsName = `${name}-dns`;
    const spec = { domain: "pub.example.com", publishDNS: true, dkim: { selector: "s2031" } };
    await domains().create(
      h.namespace,
      sendingDomain(name, { ...spec, dkim: { ...spec.dkim, algorithms: ["rsa-2048", "ed25519"] } }),
    );
    let published: DnsEndpoint | undefined;
    await vi.waitFor(async () => {
      expect(cond(await get(name), "DNSPublished")).toMatchObject({ status: "True", reason: "Published" });
      published = await h.kube.dnsEndpoints.get(h.namespace, dnsName);
    }, WAIT);
    const resource = await get(name);
    expect(cond(resource, "Synced")?.status).toBe("True");
    expect(published?.metadata.ownerReferences).toEqual([
      {
        apiVersion: "mailroom.dev/v1alpha1",
        kind: "SendingDomain",
        name,
        uid: resource.metadata.uid,
        controller: true,
      },
    ]);
    const domain = await getDomain(h.db.pool, h.namespace, "pub.example.com");
    const endpoints = published?.spec.endpoints ?? [];
    expect(endpoints.map((e) => e.dnsName).sort()).toEqual([
      "_dmarc.pub.example.com",
      "bounces.pub.example.com",
      "s2031-ed25519._domainkey.pub.example.com",
      "s2031._domainkey.pub.example.com",
    ]);
    for (const record of domain?.records ?? []) {
      const endpoint = endpoints.find((e) => e.dnsName === record.name);
      expect(endpoint).toMatchObject({ recordType: "TXT", recordTTL: 3600 });
      // One TXT record per name: its value as quoted ≤255-byte strings that join back to it.
      expect(endpoint?.targets).toHaveLength(1);
      const strings = characterStrings(endpoint?.targets[0] ?? "");
      expect(strings.join("")).toBe(record.value);
      expect(strings.every((s) => Buffer.byteLength(s) <= 255)).toBe(true);
    }
    const rsa = endpoints.find((e) => e.dnsName === "s2031._domainkey.pub.example.com");
    expect(characterStrings(rsa?.targets[0] ?? "").length).toBeGreaterThan(1);

    // Resyncs find nothing to change: no new write, and discovery was asked once.
    const writes = () =>
      requestsTo(`/dnsendpoints/${dnsName}`, ["PATCH", "PUT"]) + requestsTo("/dnsendpoints", ["POST"]);
    expect(writes()).toBe(1);
    await afterReconciles(operator.registry, 4);
    expect(writes()).toBe(1);
    expect(discoveries()).toBe(1);

    // Drift: records edited behind the operator's back are put back at the next resync.
    await h.kube.dnsEndpoints.patch(h.namespace, dnsName, { spec: { endpoints: [] } });
    await vi.waitFor(async () => {
      expect((await h.kube.dnsEndpoints.get(h.namespace, dnsName)).spec.endpoints).toEqual(endpoints);
    }, WAIT);

    await domains().patch(h.namespace, name, { spec: { publishDNS: false } });
    await vi.waitFor(async () => {
      expect(await gone(h.kube.dnsEndpoints.get(h.namespace, dnsName))).toBe(true);
      expect(cond(await get(name), "DNSPublished")).toBeUndefined();
    }, WAIT);

    // Published again, then deleted with the resource (garbage collection through the ownerReference).
    await domains().patch(h.namespace, name, { spec: { publishDNS: true } });
    await vi.waitFor(
      async () => expect(await gone(h.kube.dnsEndpoints.get(h.namespace, dnsName))).toBe(false),
      WAIT,
    );
    await domains().delete(h.namespace, name);
    await vi.waitFor(async () => {
      expect(await gone(get(name))).toBe(true);
      expect(await gone(h.kube.dnsEndpoints.get(h.namespace, dnsName))).toBe(true);
    }, WAIT);
    expect(await getDomain(h.db.pool, h.namespace, "pub.example.com")).toBeUndefined();
  });

  it("says why nothing was published while the CRD is absent, publishes once it is installed, and notices its removal", async () => {
    const operator = h.startOperator({ resyncMs: 200 });
    const name = h.name("nodns");
    await domains().create(
      h.namespace,
      sendingDomain(name, { domain: "nodns.example.com", publishDNS: true }),
    );
    await vi.waitFor(async () => {
      const d = await get(name);
      expect(cond(d, "Synced")?.status).toBe("True");
      expect(cond(d, "Ready")?.reason).toBe("VerificationPending");
      expect(cond(d, "DNSPublished")).toMatchObject({ status: "False", reason: "DNSEndpointUnavailable" });
      expect(cond(d, "DNSPublished")?.message).toContain("does not serve dnsendpoints.externaldns.k8s.io");
    }, WAIT);
    // A Warning when the reason appears, not one per reconcile. (A reconcile that runs on the informer's
    // copy before our own status write reaches it may repeat it once.)
    const warnings = async () =>
      (await h.kube.events.list(h.namespace)).items.filter(
        (e) =>
          e.involvedObject.name === name && e.reason === "DNSEndpointUnavailable" && e.type === "Warning",
      ).length;
    await afterReconciles(operator.registry, 2);
    const warned = await warnings();
    expect(warned).toBeGreaterThanOrEqual(1);
    await afterReconciles(operator.registry, 4);
    expect(await warnings()).toBe(warned);

    h.fake?.installCrd(dnsEndpointCrd());
    await vi.waitFor(async () => {
      expect(cond(await get(name), "DNSPublished")?.status).toBe("True");
      expect((await h.kube.dnsEndpoints.get(h.namespace, `${name}-dns`)).spec.endpoints).toHaveLength(3);
    }, WAIT);
    // Served is believed until a DNSEndpoint call says otherwise: no discovery request while it works.
    const asked = discoveries();
    await afterReconciles(operator.registry, 3);
    expect(discoveries()).toBe(asked);

    h.fake?.uninstallCrd(DNS_CRD);
    await vi.waitFor(async () => {
      expect(cond(await get(name), "DNSPublished")?.reason).toBe("DNSEndpointUnavailable");
    }, WAIT);
    expect(discoveries()).toBeGreaterThan(asked);
    expect(cond(await get(name), "Synced")?.status).toBe("True");
  });

  it("leaves a DNSEndpoint it did not write alone, and keeps a retained domain's records published", async () => {
    h.fake?.installCrd(dnsEndpointCrd());
    h.startOperator({ resyncMs: 200 });
    const taken = h.name("taken");
    const foreign: DnsEndpoint = {
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata: { name: `${taken}-dns` },
      spec: { endpoints: [{ dnsName: "www.taken.example.com", recordType: "TXT", targets: ['"mine"'] }] },
    };
    await h.kube.dnsEndpoints.create(h.namespace, foreign);
    await domains().create(
      h.namespace,
      sendingDomain(taken, { domain: "taken.example.com", publishDNS: true }),
    );
    await vi.waitFor(async () => {
      expect(cond(await get(taken), "DNSPublished")).toMatchObject({
        status: "False",
        reason: "DNSEndpointConflict",
      });
    }, WAIT);
    expect((await h.kube.dnsEndpoints.get(h.namespace, `${taken}-dns`)).spec).toEqual(foreign.spec);

    const kept = h.name("kept");
    await domains().create(
      h.namespace,
      sendingDomain(kept, { domain: "kept.example.com", publishDNS: true, reclaimPolicy: "Retain" }),
    );
    await vi.waitFor(async () => expect(cond(await get(kept), "DNSPublished")?.status).toBe("True"), WAIT);
    await domains().delete(h.namespace, kept);
    await vi.waitFor(async () => expect(await gone(get(kept))).toBe(true), WAIT);
    const orphan = await h.kube.dnsEndpoints.get(h.namespace, `${kept}-dns`);
    expect(orphan.metadata.ownerReferences ?? []).toEqual([]);
    expect(orphan.spec.endpoints).toHaveLength(3);
    expect(await getDomain(h.db.pool, h.namespace, "kept.example.com")).toBeDefined();
  });
});

describe("SendingDomain spec.dkim.selector", () => {
  it("names the DKIM keys on creation, survives drift, and cannot be changed afterwards", async () => {
    h.startOperator({ resyncMs: 200 });
    const name = h.name("sel");
    const domainName = `${name}.example.com`;
    await domains().create(
      h.namespace,
      sendingDomain(name, {
        domain: domainName,
        dkim: { selector: "s1", algorithms: ["rsa-2048", "ed25519"] },
      }),
    );
    await vi.waitFor(async () => {
      const d = await get(name);
      expect(cond(d, "Synced")?.status).toBe("True");
      expect(
        d.status?.records
          ?.map((r) => r.name)
          .filter((n) => n.includes("._domainkey."))
          .sort(),
      ).toEqual([`s1-ed25519._domainkey.${domainName}`, `s1._domainkey.${domainName}`]);
    }, WAIT);
    const created = await getDomain(h.db.pool, h.namespace, domainName);
    expect(created?.dkimKeys.map((k) => [k.algorithm, k.selector]).sort()).toEqual([
      ["ed25519", "s1-ed25519"],
      ["rsa", "s1"],
    ]);

    // The API cannot delete it (409 managed_by_operator). Deleted anyway, behind the operator's back, it is
    // not re-created under the same selector: resolvers may cache the old key's record, so new keys there
    // would fail verification. The resource says so until it is re-created with another selector.
    await expect(deleteDomain(h.db.pool, h.namespace, domainName)).rejects.toMatchObject({
      code: "managed_by_operator",
    });
    await deleteDomain(h.db.pool, h.namespace, domainName, { actor: "operator" });
    await vi.waitFor(async () => {
      const d = await get(name);
      expect(cond(d, "Synced")).toMatchObject({ status: "False", reason: "Invalid" });
      expect(cond(d, "Synced")?.message).toContain('DKIM selector "s1" was used by a deleted key');
    }, WAIT);
    expect(await getDomain(h.db.pool, h.namespace, domainName)).toBeUndefined();

    const refused = await domains()
      .patch(h.namespace, name, { spec: { dkim: { selector: "s2" } } })
      .catch((e: unknown) => e);
    expect(isKubeError(refused, 422)).toBe(true);
    expect((refused as Error).message).toContain("dkim.selector is immutable");
  });

  it("reports a selector added after creation as SelectorImmutable, and a selector core refuses as Invalid", async () => {
    h.startOperator();
    const late = h.name("late");
    await domains().create(h.namespace, sendingDomain(late, { domain: `${late}.example.com` }));
    await vi.waitFor(async () => expect(cond(await get(late), "Synced")?.status).toBe("True"), WAIT);
    const generated = (await getDomain(h.db.pool, h.namespace, `${late}.example.com`))?.dkimKeys[0]?.selector;
    expect(generated).toMatch(/^mr-/);
    await domains().patch(h.namespace, late, { spec: { dkim: { selector: "late" } } });
    await vi.waitFor(async () => {
      const d = await get(late);
      expect(cond(d, "Ready")).toMatchObject({
        status: "False",
        reason: "SelectorImmutable",
        observedGeneration: 2,
      });
      expect(cond(d, "Synced")).toMatchObject({ status: "False", reason: "SelectorImmutable" });
      expect(d.status?.records?.some((r) => r.name === `${generated}._domainkey.${late}.example.com`)).toBe(
        true,
      );
    }, WAIT);
    expect((await getDomain(h.db.pool, h.namespace, `${late}.example.com`))?.dkimKeys[0]?.selector).toBe(
      generated,
    );

    // The schema admits 63 characters; with Ed25519 the derived `<selector>-ed25519` would not be a DNS label.
    const long = h.name("long");
    await domains().create(
      h.namespace,
      sendingDomain(long, {
        domain: `${long}.example.com`,
        dkim: { selector: "a".repeat(60), algorithms: ["rsa-2048", "ed25519"] },
      }),
    );
    await vi.waitFor(async () => {
      const d = await get(long);
      expect(cond(d, "Ready")).toMatchObject({ status: "False", reason: "Invalid" });
      expect(cond(d, "Ready")?.message).toContain("is not a DNS label");
    }, WAIT);
    expect(await getDomain(h.db.pool, h.namespace, `${long}.example.com`)).toBeUndefined();
  });
});
