import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApiKey } from "../../../operator/src/crds/index.ts";
import type { Kube, WatchHandle } from "../../../operator/src/kube/index.ts";
import { apiKey } from "./fixtures.ts";
import type { KubeFake } from "./index.ts";
import { kubeErrorOf, useKubeFake } from "./test-harness.ts";

/** The fake collects garbage a moment after a change, as kube-controller-manager does. */
const GC = { timeout: 5_000, interval: 10 };

const FINALIZER = "mailroom.dev/revoke";
let _fake: KubeFake;
let kube: Kube;
let watch: WatchHandle | undefined;
useKubeFake((f, k) => {
  _fake = f;
  kube = k;
});
afterEach(() => {
  watch?.stop();
  watch = undefined;
});
const rejection = kubeErrorOf;

describe("kube-fake deletion semantics", () => {
  it("marks an object with finalizers as deleting, and deletes it when the last finalizer goes", async () => {
    const keys = kube.customResources.ApiKey;
    const created = await keys.create("default", {
      ...apiKey("fin"),
      metadata: { name: "fin", finalizers: [FINALIZER, "other/x"] },
    });
    const events: string[] = [];
    watch = await keys.watch({ resourceVersion: created.metadata.resourceVersion }, (e) =>
      events.push(`${e.type}${e.object.metadata.deletionTimestamp ? " deleting" : ""}`),
    );

    await keys.delete("default", "fin");
    const deleting = await keys.get("default", "fin");
    expect(deleting.metadata.deletionTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // The generic registry bumps generation when it marks an object for deletion.
    expect(deleting.metadata.generation).toBe(2);

    // Deleting again changes nothing; adding a finalizer now is forbidden.
    await keys.delete("default", "fin");
    expect((await keys.get("default", "fin")).metadata.resourceVersion).toBe(
      deleting.metadata.resourceVersion,
    );
    const added = await rejection(
      keys.patch("default", "fin", { metadata: { finalizers: [FINALIZER, "other/x", "new/y"] } }),
    );
    expect(added).toMatchObject({ code: 422, reason: "Invalid" });
    expect(added.message).toContain("no new finalizers can be added if the object is being deleted");

    await keys.patch("default", "fin", [{ op: "remove", path: "/metadata/finalizers/1" }]);
    expect((await keys.get("default", "fin")).metadata.finalizers).toEqual([FINALIZER]);
    await keys.patch("default", "fin", { metadata: { finalizers: null } });
    expect((await rejection(keys.get("default", "fin"))).code).toBe(404);
    await vi.waitFor(() =>
      expect(events).toEqual(["MODIFIED deleting", "MODIFIED deleting", "DELETED deleting"]),
    );
  });

  it("deletes at once without finalizers, honouring a resourceVersion precondition", async () => {
    const created = await kube.customResources.ApiKey.create("default", apiKey("now"));
    await kube.customResources.ApiKey.patch("default", "now", { metadata: { labels: { v: "2" } } });
    const stale = await rejection(
      kube.customResources.ApiKey.delete("default", "now", {
        resourceVersion: created.metadata.resourceVersion,
      }),
    );
    expect(stale).toMatchObject({ code: 409, reason: "Conflict" });
    await kube.customResources.ApiKey.delete("default", "now");
    expect((await rejection(kube.customResources.ApiKey.get("default", "now"))).code).toBe(404);
    expect((await rejection(kube.customResources.ApiKey.delete("default", "now"))).code).toBe(404);
  });

  it("garbage-collects a Secret owned by a deleted resource, after its finalizers are gone", async () => {
    const key: ApiKey = await kube.customResources.ApiKey.create("default", {
      ...apiKey("owner"),
      metadata: { name: "owner", finalizers: [FINALIZER] },
    });
    const ownerReferences = [
      {
        apiVersion: "mailroom.dev/v1alpha1",
        kind: "ApiKey",
        name: "owner",
        uid: key.metadata.uid ?? "",
        controller: true,
      },
    ];
    await kube.secrets.create("default", {
      metadata: { name: "owner-api-key", ownerReferences },
      stringData: { apiKey: "k" },
    });
    await kube.secrets.create("default", { metadata: { name: "unowned" }, stringData: { apiKey: "k" } });

    await kube.customResources.ApiKey.delete("default", "owner");
    expect((await kube.secrets.get("default", "owner-api-key")).metadata?.name).toBe("owner-api-key");
    await kube.customResources.ApiKey.patch("default", "owner", { metadata: { finalizers: null } });
    // The collector works a moment later, as kube-controller-manager's does, not within the request.
    await vi.waitFor(
      async () => expect((await rejection(kube.secrets.get("default", "owner-api-key"))).code).toBe(404),
      GC,
    );
    expect((await kube.secrets.get("default", "unowned")).metadata?.name).toBe("unowned");
  });

  it("keeps dependents with propagationPolicy Orphan", async () => {
    const key = await kube.customResources.ApiKey.create("default", apiKey("orphaner"));
    const ownerReferences = [
      { apiVersion: "mailroom.dev/v1alpha1", kind: "ApiKey", name: "orphaner", uid: key.metadata.uid ?? "" },
    ];
    await kube.secrets.create("default", {
      metadata: { name: "kept", ownerReferences },
      stringData: { a: "b" },
    });
    await kube.customResources.ApiKey.delete("default", "orphaner", { propagationPolicy: "Orphan" });
    // The garbage collector removes the reference to the orphaning owner, as kube-controller-manager does.
    await vi.waitFor(async () => {
      expect((await kube.secrets.get("default", "kept")).metadata?.ownerReferences).toBeUndefined();
    }, GC);
  });

  it("deletes dependents first under propagationPolicy Foreground, before the owner's finalizers run", async () => {
    const key = await kube.customResources.ApiKey.create("default", {
      ...apiKey("fg"),
      metadata: { name: "fg", finalizers: [FINALIZER] },
    });
    const owner = {
      apiVersion: "mailroom.dev/v1alpha1",
      kind: "ApiKey",
      name: "fg",
      uid: key.metadata.uid ?? "",
    };
    await kube.secrets.create("default", { metadata: { name: "dep", ownerReferences: [owner] } });
    // A blocking dependent that has a finalizer of its own keeps the owner in foreground deletion.
    await kube.secrets.create("default", {
      metadata: {
        name: "slow",
        finalizers: ["x/y"],
        ownerReferences: [{ ...owner, blockOwnerDeletion: true }],
      },
    });
    await kube.customResources.ApiKey.delete("default", "fg", { propagationPolicy: "Foreground" });
    await vi.waitFor(async () => {
      expect((await rejection(kube.secrets.get("default", "dep"))).code).toBe(404);
      expect((await kube.secrets.get("default", "slow")).metadata?.deletionTimestamp).toBeDefined();
    }, GC);
    const deleting = await kube.customResources.ApiKey.get("default", "fg");
    expect(deleting.metadata.finalizers).toEqual([FINALIZER, "foregroundDeletion"]);
    await kube.secrets.patch("default", "slow", { metadata: { finalizers: null } });
    await vi.waitFor(async () => {
      expect((await kube.customResources.ApiKey.get("default", "fg")).metadata.finalizers).toEqual([
        FINALIZER,
      ]);
    }, GC);
    await kube.customResources.ApiKey.patch("default", "fg", { metadata: { finalizers: null } });
    expect((await rejection(kube.customResources.ApiKey.get("default", "fg"))).code).toBe(404);
  });
});
