import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { apiKey } from "../../../test/support/kube-fake/fixtures.ts";
import { type KubeFake, startKubeFake } from "../../../test/support/kube-fake/index.ts";
import { createKube, isKubeError, KubeError } from "./index.ts";

let fake: KubeFake | undefined;
let plain: Server | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  plain?.closeAllConnections();
  await new Promise<void>((resolve) => (plain ? plain.close(() => resolve()) : resolve()));
  plain = undefined;
});

describe("kube/index.ts", () => {
  it("turns API failures into KubeError with the Status code, reason and message", async () => {
    fake = await startKubeFake();
    const kube = createKube(fake.kubeConfig());
    const err = await kube.secrets.get("default", "absent").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect(err).toMatchObject({ code: 404, reason: "NotFound", message: 'secrets "absent" not found' });
    expect(isKubeError(err, 404)).toBe(true);
    expect(isKubeError(err, 409)).toBe(false);
  });

  it("keeps the HTTP code when the body is not a Status (e.g. a proxy page)", async () => {
    plain = createServer((_req, res) => {
      res.writeHead(503, { "content-type": "text/html" });
      res.end("<h1>upstream unavailable</h1>");
    });
    await new Promise<void>((resolve) => plain?.listen(0, "127.0.0.1", resolve));
    const kc = new KubeConfig();
    const server = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    kc.loadFromOptions({
      clusters: [{ name: "c", server, skipTLSVerify: true }],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    const err = await createKube(kc)
      .customResources.ApiKey.get("default", "k")
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 503, reason: "Unknown" });
  });

  it("sends an object as a merge patch and an array as a JSON patch", async () => {
    fake = await startKubeFake();
    const kube = createKube(fake.kubeConfig());
    await kube.customResources.ApiKey.create("default", apiKey("p"));
    await kube.customResources.ApiKey.patch("default", "p", { metadata: { labels: { a: "1" } } });
    await kube.customResources.ApiKey.patchStatus("default", "p", [
      { op: "add", path: "/status", value: { keyId: "abcdefghijkl" } },
    ]);
    await kube.secrets.create("default", { metadata: { name: "s" }, stringData: { k: "v" } });
    await kube.secrets.patch("default", "s", { metadata: { labels: { b: "2" } } });
    const media = fake.requests.filter((r) => r.method === "PATCH").map((r) => `${r.path} ${r.contentType}`);
    expect(media).toEqual([
      "/apis/mailroom.dev/v1alpha1/namespaces/default/apikeys/p application/merge-patch+json",
      "/apis/mailroom.dev/v1alpha1/namespaces/default/apikeys/p/status application/json-patch+json",
      "/api/v1/namespaces/default/secrets/s application/merge-patch+json",
    ]);
    expect((await kube.customResources.ApiKey.get("default", "p")).status?.keyId).toBe("abcdefghijkl");
    expect((await kube.secrets.get("default", "s")).metadata?.labels).toEqual({ b: "2" });
  });
});

describe("kube/index.ts watches", () => {
  it("ends a quiet watch cleanly when client-node's inactivity timer fires, and asks for bookmarks", async () => {
    fake = await startKubeFake();
    // Long enough for the connect (the same timer guards it), short enough for a quick test.
    const kube = createKube(fake.kubeConfig(), { watchInactivityMs: 1_000, random: () => 0.5 });
    await kube.customResources.ApiKey.list("default");
    const handle = await kube.customResources.ApiKey.watch({ namespace: "default" }, () => {});
    // Nothing happens on the stream: a real API server sends nothing either. That is no failure.
    await expect(handle.done).resolves.toBeUndefined();
    const watch = fake.requests.find((r) => r.watch);
    expect(watch?.query).toMatchObject({ allowWatchBookmarks: "true", timeoutSeconds: "450" });
  });

  it("still fails a watch that could not connect, and one the server ended with an error", async () => {
    fake = await startKubeFake();
    const kube = createKube(fake.kubeConfig(), { watchInactivityMs: 200 });
    const old = await kube.customResources.ApiKey.create("default", apiKey("old"));
    fake.compact();
    const expired = await kube.customResources.ApiKey.watch(
      { resourceVersion: old.metadata.resourceVersion },
      () => {},
    );
    await expect(expired.done).rejects.toMatchObject({ code: 410 });
    fake.hold((r) => r.watch);
    const hung = await kube.customResources.ApiKey.watch({}, () => {});
    await expect(hung.done).rejects.toThrow(/timeout/i);
  });
});
