/**
 * Watches as the real API server serves them: on a quiet watch the server sends nothing but a bookmark about
 * once a minute, so the client's idle timer must outlast that or no bookmark ever arrives.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { expect, inject, it } from "vitest";
import { createKube, type WatchEvent } from "../../operator/src/kube/index.ts";
import { ensureNamespace } from "./cluster.ts";

const kube = inject("kube");

it("keeps a quiet watch open until the server's bookmark arrives, with the default idle timer", async () => {
  const namespace = "quiet-watch";
  await ensureNamespace(kube, namespace);
  const kc = new KubeConfig();
  kc.loadFromFile(kube.adminKubeconfig);
  const client = createKube(kc).customResources.ApiKey;
  const listed = await client.list(namespace);
  const events: WatchEvent<unknown>[] = [];
  let bookmarked: () => void = () => {};
  const bookmark = new Promise<"bookmark">((resolve) => {
    bookmarked = () => resolve("bookmark");
  });
  const handle = await client.watch({ namespace, resourceVersion: listed.resourceVersion }, (event) => {
    events.push(event);
    if (event.type === "BOOKMARK") bookmarked();
  });
  try {
    // client-node's default idle timer (30 s) ended the watch before the first bookmark (about 60 s).
    const first = await Promise.race([bookmark, handle.done.then(() => "ended" as const)]);
    expect(first).toBe("bookmark");
    expect(events.map((e) => e.type)).toEqual(["BOOKMARK"]);
  } finally {
    handle.stop();
  }
}, 150_000);
