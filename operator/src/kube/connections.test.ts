import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createSecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { CoreV1Api, HttpMethod, KubeConfig, RequestContext } from "@kubernetes/client-node";
import { ensureLocalCertificates } from "@mailroom/core/tls";
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

// undici 8 offers HTTP/2 by ALPN, and its HTTP/2 client's teardown raised an uncaught error in the contract suite
// (ADR 0076's amendment): the operator's requests go over HTTP/1.1. A server that speaks both, as the API
// server does, says which one each request came in on.
it("talks HTTP/1.1 to a server that offers HTTP/2 too, and reuses its connections", async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kube-connections-"));
  const tls = await ensureLocalCertificates(dir, ["localhost", "127.0.0.1"]);
  const versions: string[] = [];
  let connections = 0;
  const server = createSecureServer(
    { allowHTTP1: true, key: await readFile(tls.keyFile), cert: await readFile(tls.certFile) },
    (req, res) => {
      versions.push(req.httpVersion);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ kind: "NamespaceList", apiVersion: "v1", metadata: {}, items: [] }));
    },
  );
  const sockets = new Set<import("node:tls").TLSSocket>();
  server.on("secureConnection", (socket) => {
    connections += 1;
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: "c",
          server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
          caFile: tls.caCertFile,
        },
      ],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    const api = sharingConnections(kc).makeApiClient(CoreV1Api);
    for (let i = 0; i < 5; i++) await api.listNamespace();
    const opened = connections;
    for (let i = 0; i < 20; i++) await api.listNamespace();
    expect(new Set(versions)).toEqual(new Set(["1.1"]));
    expect(versions).toHaveLength(25);
    // Kept alive and reused: 20 more requests open none (undici opened 2 for the first of them here).
    expect(opened).toBeLessThanOrEqual(2);
    expect(connections).toBe(opened);
    // client-node's own dispatcher takes HTTP/2 from the same server: the choice is ours, not a server's.
    await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(versions.at(-1)).toBe("2.0");
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
