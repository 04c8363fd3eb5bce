import { describe, expect, it } from "vitest";
import { isKubeError, type Kube } from "../../../operator/src/kube/index.ts";
import { apiKey, readyCondition, sendingDomain } from "./fixtures.ts";
import type { KubeFake } from "./index.ts";
import { kubeErrorOf, useKubeFake } from "./test-harness.ts";

let fake: KubeFake;
let kube: Kube;
useKubeFake((f, k) => {
  fake = f;
  kube = k;
});

describe("kube-fake CRUD through @kubernetes/client-node", () => {
  it("creates with server-set metadata and schema defaults, and drops status on create", async () => {
    const created = await kube.customResources.ApiKey.create("team-a", {
      ...apiKey("billing"),
      status: { keyId: "AAAAAAAAAAAA" },
    });
    expect(created.metadata).toMatchObject({ name: "billing", namespace: "team-a", generation: 1 });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(created.spec).toEqual({
      scopes: ["send"],
      expiresIn: "never",
      mode: "live",
      reclaimPolicy: "Delete",
    });
    expect(created.status).toBeUndefined();
    expect(await kube.customResources.ApiKey.get("team-a", "billing")).toEqual(created);
  });

  it("answers 404 and 409 AlreadyExists with Status bodies like the real API", async () => {
    const missing = await kubeErrorOf(kube.customResources.ApiKey.get("default", "nope"));
    expect(missing).toMatchObject({
      code: 404,
      reason: "NotFound",
      message: 'apikeys.mailroom.dev "nope" not found',
    });
    const secret = await kubeErrorOf(kube.secrets.get("default", "nope"));
    expect(secret).toMatchObject({ code: 404, reason: "NotFound", message: 'secrets "nope" not found' });

    await kube.customResources.ApiKey.create("default", apiKey("dup"));
    const dup = await kubeErrorOf(kube.customResources.ApiKey.create("default", apiKey("dup")));
    expect(dup).toMatchObject({
      code: 409,
      reason: "AlreadyExists",
      message: 'apikeys.mailroom.dev "dup" already exists',
    });
    expect(isKubeError(dup, 409)).toBe(true);
  });

  it("lists per namespace and across namespaces, by label, with the store's resourceVersion", async () => {
    await kube.customResources.ApiKey.create("a", apiKey("one", {}, { tier: "gold" }));
    await kube.customResources.ApiKey.create("a", apiKey("two"));
    await kube.customResources.ApiKey.create("b", apiKey("three", {}, { tier: "gold" }));
    const inA = await kube.customResources.ApiKey.list("a");
    expect(inA.items.map((k) => k.metadata.name)).toEqual(["one", "two"]);
    expect(inA.resourceVersion).toBe(String(fake.resourceVersion()));
    const all = await kube.customResources.ApiKey.list(undefined, { labelSelector: "tier=gold" });
    expect(all.items.map((k) => `${k.metadata.namespace}/${k.metadata.name}`)).toEqual(["a/one", "b/three"]);
    expect((await kube.customResources.SendingDomain.list(undefined)).items).toEqual([]);
  });

  it("bumps generation on spec changes only, and not for a no-op write", async () => {
    const created = await kube.customResources.ApiKey.create("default", apiKey("gen"));
    const labelled = await kube.customResources.ApiKey.patch("default", "gen", {
      metadata: { labels: { a: "b" } },
    });
    expect(labelled.metadata.generation).toBe(1);
    expect(labelled.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);

    const withStatus = await kube.customResources.ApiKey.patchStatus("default", "gen", {
      status: { keyId: "abcdefghijkl" },
    });
    expect(withStatus.metadata.generation).toBe(1);

    const changed = await kube.customResources.ApiKey.patch("default", "gen", {
      spec: { reclaimPolicy: "Retain" },
    });
    expect(changed.metadata.generation).toBe(2);

    // Re-sending a default the server already applied changes nothing: same resourceVersion, no bump.
    const same = await kube.customResources.ApiKey.patch("default", "gen", { spec: { expiresIn: "never" } });
    expect(same.metadata.generation).toBe(2);
    expect(same.metadata.resourceVersion).toBe(changed.metadata.resourceVersion);
  });

  it("splits /status: the main resource ignores status, /status ignores everything else", async () => {
    const created = await kube.customResources.SendingDomain.create("default", sendingDomain("d"));
    const status = await kube.customResources.SendingDomain.patchStatus("default", "d", {
      metadata: { labels: { sneaky: "yes" } },
      spec: { publishDNS: true },
      status: { verification: "pending", conditions: [readyCondition(1, "False")] },
    });
    expect(status.metadata.labels).toBeUndefined();
    expect(status.spec.publishDNS).toBe(false);
    expect(status.status?.verification).toBe("pending");

    const replaced = await kube.customResources.SendingDomain.replace("default", "d", {
      ...status,
      spec: { ...status.spec, publishDNS: true },
      status: { verification: "verified" },
    });
    expect(replaced.spec.publishDNS).toBe(true);
    expect(replaced.status?.verification).toBe("pending");
    expect(replaced.metadata.generation).toBe((created.metadata.generation ?? 0) + 1);
  });

  it("rejects a write at a stale resourceVersion with 409 Conflict, and a CR PUT without one with 422", async () => {
    const v1 = await kube.customResources.ApiKey.create("default", apiKey("cas"));
    await kube.customResources.ApiKey.patch("default", "cas", { spec: { reclaimPolicy: "Retain" } });
    const stale = await kubeErrorOf(kube.customResources.ApiKey.replace("default", "cas", v1));
    expect(stale).toMatchObject({ code: 409, reason: "Conflict" });
    expect(stale.message).toBe(
      'Operation cannot be fulfilled on apikeys.mailroom.dev "cas": the object has been modified; please apply your changes to the latest version and try again',
    );
    const stalePatch = await kubeErrorOf(
      kube.customResources.ApiKey.patch("default", "cas", {
        metadata: { resourceVersion: v1.metadata.resourceVersion },
      }),
    );
    expect(stalePatch.code).toBe(409);
    const { resourceVersion: _rv, ...meta } = v1.metadata;
    const unconditional = await kubeErrorOf(
      kube.customResources.ApiKey.replace("default", "cas", { ...v1, metadata: meta }),
    );
    expect(unconditional).toMatchObject({ code: 422, reason: "Invalid" });
    expect(unconditional.message).toContain("metadata.resourceVersion");
  });

  it("applies JSON patch (client-node's default media type) and merge patch", async () => {
    await kube.customResources.ApiKey.create("default", apiKey("p", { scopes: ["send"] }));
    await kube.customResources.ApiKey.patch("default", "p", [
      { op: "test", path: "/spec/reclaimPolicy", value: "Delete" },
      { op: "replace", path: "/spec/reclaimPolicy", value: "Retain" },
    ]);
    await kube.customResources.ApiKey.patch("default", "p", { metadata: { finalizers: ["mailroom.dev/x"] } });
    const patchRequests = fake.requests.filter((r) => r.method === "PATCH").map((r) => r.contentType);
    expect(patchRequests).toEqual(["application/json-patch+json", "application/merge-patch+json"]);
    const got = await kube.customResources.ApiKey.get("default", "p");
    expect(got.spec.reclaimPolicy).toBe("Retain");
    expect(got.metadata.finalizers).toEqual(["mailroom.dev/x"]);
    const failedTest = await kubeErrorOf(
      kube.customResources.ApiKey.patch("default", "p", [
        { op: "test", path: "/spec/reclaimPolicy", value: "Delete" },
      ]),
    );
    expect(failedTest.code).toBe(422);
  });

  it("stores Secrets with stringData folded into base64 data, and Leases with compare-and-swap", async () => {
    const secret = await kube.secrets.create("default", {
      metadata: { name: "k" },
      stringData: { apiKey: "mrk_x" },
    });
    expect(secret.data).toEqual({ apiKey: Buffer.from("mrk_x").toString("base64") });
    expect(secret.stringData).toBeUndefined();
    expect(secret.type).toBe("Opaque");

    const lease = await kube.leases.create("mailroom", {
      metadata: { name: "operator" },
      spec: { holderIdentity: "pod-a", leaseDurationSeconds: 15 },
    });
    const taken = await kube.leases.replace("mailroom", "operator", {
      ...lease,
      spec: { ...lease.spec, holderIdentity: "pod-b" },
    });
    expect(taken.spec?.holderIdentity).toBe("pod-b");
    const lost = await kubeErrorOf(
      kube.leases.replace("mailroom", "operator", {
        ...lease,
        spec: { ...lease.spec, holderIdentity: "pod-c" },
      }),
    );
    expect(lost.code).toBe(409);

    const event = await kube.events.create("default", {
      metadata: { generateName: "billing." },
      involvedObject: { kind: "ApiKey", name: "billing", namespace: "default" },
      reason: "Reconciled",
      message: "key issued",
      type: "Normal",
    });
    expect(event.metadata?.name).toMatch(/^billing\.[a-z0-9]{5}$/);
    expect((await kube.events.list("default")).items).toHaveLength(1);
  });

  it("refuses a client without the cluster's credentials", async () => {
    const res = await fetch(`${fake.url}/apis/mailroom.dev/v1alpha1/namespaces/default/apikeys`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ kind: "Status", code: 401, reason: "Unauthorized" });
  });
});
