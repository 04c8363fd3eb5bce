import { CustomObjectsApi, type KubernetesObject, makeInformer } from "@kubernetes/client-node";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApiKey } from "../../../operator/src/crds/index.ts";
import { type Kube, KubeError, type WatchEvent, type WatchHandle } from "../../../operator/src/kube/index.ts";
import { apiKey } from "./fixtures.ts";
import type { KubeFake } from "./index.ts";
import { useKubeFake } from "./test-harness.ts";

let fake: KubeFake;
let kube: Kube;
const handles: WatchHandle[] = [];
useKubeFake((f, k) => {
  fake = f;
  kube = k;
});
afterEach(() => {
  for (const h of handles.splice(0)) h.stop();
});

function describeEvent(e: WatchEvent<ApiKey>): string {
  return `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`;
}

async function watchKeys(options: { namespace?: string; resourceVersion?: string; labelSelector?: string }) {
  const seen: string[] = [];
  const handle = await kube.customResources.ApiKey.watch(options, (e) => seen.push(describeEvent(e)));
  handles.push(handle);
  return { seen, handle };
}

describe("kube-fake watch through @kubernetes/client-node", () => {
  it("streams the changes after a resourceVersion, in order, with each change's resourceVersion", async () => {
    const first = await kube.customResources.ApiKey.create("default", apiKey("a"));
    await kube.customResources.ApiKey.create("other", apiKey("elsewhere"));
    const { seen } = await watchKeys({
      namespace: "default",
      resourceVersion: first.metadata.resourceVersion,
    });
    const b = await kube.customResources.ApiKey.create("default", apiKey("b"));
    const patched = await kube.customResources.ApiKey.patch("default", "a", {
      spec: { reclaimPolicy: "Retain" },
    });
    await kube.customResources.ApiKey.delete("default", "b");
    const rv = fake.resourceVersion();
    await vi.waitFor(() =>
      expect(seen).toEqual([
        `ADDED b@${b.metadata.resourceVersion}`,
        `MODIFIED a@${patched.metadata.resourceVersion}`,
        `DELETED b@${rv}`,
      ]),
    );
  });

  it("starts a watch without resourceVersion with the current objects as ADDED", async () => {
    await kube.customResources.ApiKey.create("default", apiKey("x"));
    await kube.customResources.ApiKey.create("other", apiKey("y"));
    const { seen } = await watchKeys({});
    await vi.waitFor(() => expect(seen.map((s) => s.split("@")[0])).toEqual(["ADDED x", "ADDED y"]));
  });

  it("turns a label change into ADDED/DELETED for a selector-filtered watch", async () => {
    await kube.customResources.ApiKey.create("default", apiKey("l"));
    const { seen } = await watchKeys({
      labelSelector: "team=mail",
      resourceVersion: String(fake.resourceVersion()),
    });
    await kube.customResources.ApiKey.patch("default", "l", { metadata: { labels: { team: "mail" } } });
    await kube.customResources.ApiKey.patch("default", "l", { metadata: { labels: { team: null } } });
    await vi.waitFor(() => expect(seen.map((s) => s.split("@")[0])).toEqual(["ADDED l", "DELETED l"]));
  });

  it("answers a watch from a compacted resourceVersion with a 410 Expired ERROR event", async () => {
    const created = await kube.customResources.ApiKey.create("default", apiKey("old"));
    fake.compact();
    const { handle, seen } = await watchKeys({ resourceVersion: created.metadata.resourceVersion });
    const err = await handle.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(KubeError);
    expect(err).toMatchObject({ code: 410, reason: "Expired" });
    expect((err as KubeError).message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    expect(seen).toEqual([]);
    // A fresh list gives a resourceVersion that can be watched again.
    const list = await kube.customResources.ApiKey.list(undefined);
    const again = await watchKeys({ resourceVersion: list.resourceVersion });
    await kube.customResources.ApiKey.delete("default", "old");
    await vi.waitFor(() => expect(again.seen.map((s) => s.split("@")[0])).toEqual(["DELETED old"]));
  });

  it("answers an Exact list from a compacted resourceVersion with 410", async () => {
    const created = await kube.customResources.ApiKey.create("default", apiKey("e"));
    fake.compact();
    const res = await fetch(
      `${fake.url}/apis/mailroom.dev/v1alpha1/apikeys?resourceVersion=${created.metadata.resourceVersion}&resourceVersionMatch=Exact`,
      { headers: { authorization: `Bearer ${fake.kubeConfig().getCurrentUser()?.token}` } },
    );
    expect(res.status).toBe(410);
    expect(await res.json()).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
  });

  it("ends a dropped watch cleanly or with an error, and leaves no stream open after stop()", async () => {
    const graceful = await watchKeys({ resourceVersion: "0" });
    await vi.waitFor(() => expect(fake.openWatches()).toBe(1));
    expect(fake.dropWatches()).toBe(1);
    await expect(graceful.handle.done).resolves.toBeUndefined();

    const abrupt = await watchKeys({ resourceVersion: "0" });
    await vi.waitFor(() => expect(fake.openWatches()).toBe(1));
    fake.dropWatches({ abrupt: true });
    await expect(abrupt.handle.done).rejects.toThrow();

    const stopped = await watchKeys({ resourceVersion: "0" });
    await vi.waitFor(() => expect(fake.openWatches()).toBe(1));
    stopped.handle.stop();
    await stopped.handle.done;
    await vi.waitFor(() => expect(fake.openWatches()).toBe(0));
  });

  it("lets client-node's informer resume after a dropped watch and relist after 410", async () => {
    const kc = fake.kubeConfig();
    const api = kc.makeApiClient(CustomObjectsApi);
    const path = "/apis/mailroom.dev/v1alpha1/namespaces/default/apikeys";
    const informer = makeInformer<KubernetesObject>(kc, path, () =>
      api.listNamespacedCustomObject({
        group: "mailroom.dev",
        version: "v1alpha1",
        namespace: "default",
        plural: "apikeys",
      }),
    );
    const added: string[] = [];
    informer.on("add", (o) => added.push(o.metadata?.name ?? ""));
    const lists = () => fake.requests.filter((r) => r.method === "GET" && r.path === path && !r.watch).length;
    try {
      await kube.customResources.ApiKey.create("default", apiKey("before"));
      await informer.start();
      await vi.waitFor(() => expect(fake.openWatches()).toBe(1));
      expect(added).toEqual(["before"]);
      expect(lists()).toBe(1);

      // Clean drop: the informer re-watches from its resourceVersion and misses nothing, without a relist.
      fake.dropWatches();
      await kube.customResources.ApiKey.create("default", apiKey("during-drop"));
      await vi.waitFor(() => expect(added).toEqual(["before", "during-drop"]), { timeout: 5000 });
      expect(lists()).toBe(1);

      // Compaction then a drop: resuming answers 410 and the informer must relist.
      await vi.waitFor(() => expect(fake.openWatches()).toBe(1), { timeout: 5000 });
      fake.compact();
      fake.dropWatches();
      await kube.customResources.ApiKey.create("default", apiKey("after-compact"));
      await vi.waitFor(() => expect(added).toContain("after-compact"), { timeout: 10_000 });
      expect(lists()).toBe(2);
    } finally {
      await informer.stop();
    }
  });
});
