import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { HttpMethod, KubeConfig, RequestContext } from "@kubernetes/client-node";
import { afterEach, expect, it } from "vitest";
import { sharingConnections } from "./connections.ts";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A kubeconfig for an HTTPS server whose CA is read from a file, as in a pod (the service account's ca.crt). */
async function kubeConfigWithCaFile(ca: string) {
  dir = await mkdtemp(path.join(os.tmpdir(), "kube-connections-"));
  const caFile = path.join(dir, "ca.crt");
  await writeFile(caFile, ca);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: "https://127.0.0.1:6443", caFile }],
    users: [{ name: "u", token: "t" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return { kc, caFile };
}

/** The dispatcher client-node gives one request (what each API call and each watch does first). */
async function dispatcherOf(kc: KubeConfig) {
  const context = new RequestContext("https://127.0.0.1:6443/api", HttpMethod.GET);
  await kc.applySecurityAuthentication(context);
  return context.getDispatcher() as { closed: boolean } | undefined;
}

it("gives every request one dispatcher, where client-node builds one per request", async () => {
  const { kc } = await kubeConfigWithCaFile("first CA");
  // client-node's own behaviour, which the wrapper exists for: when this fails, drop the wrapper (ADR 0076).
  expect(await dispatcherOf(kc)).not.toBe(await dispatcherOf(kc));
  const shared = sharingConnections(kc);
  const first = await dispatcherOf(shared);
  expect(first).toBeDefined();
  expect(await dispatcherOf(shared)).toBe(first);
  // Everything else is the KubeConfig's own.
  expect(shared.getCurrentCluster()?.server).toBe("https://127.0.0.1:6443");
});

it("builds a new dispatcher when the CA file changes and closes the old one", async () => {
  const { kc, caFile } = await kubeConfigWithCaFile("first CA");
  const shared = sharingConnections(kc);
  const first = await dispatcherOf(shared);
  await writeFile(caFile, "rotated CA");
  const second = await dispatcherOf(shared);
  expect(second).not.toBe(first);
  expect(first?.closed).toBe(true);
  expect(second?.closed).toBe(false);
  expect(await dispatcherOf(shared)).toBe(second);
});
