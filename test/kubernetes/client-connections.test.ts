/**
 * The operator's connections to the real API server: client-node 2 builds a new undici Agent for every request
 * (each list, get, patch and watch), and a new Agent opens a new TLS connection (HTTP/2 by ALPN) that nobody
 * closes. The operator's client must reuse its connections however many requests it makes (ADR 0076); it
 * speaks HTTP/1.1, each request in flight on a kept-alive connection of its own (ADR 0076's amendment).
 */
import { readdir, readFile, readlink } from "node:fs/promises";
import { KubeConfig } from "@kubernetes/client-node";
import { expect, inject, it } from "vitest";
import { createKube } from "../../operator/src/kube/index.ts";
import { ensureNamespace } from "./cluster.ts";

const kube = inject("kube");

/** This process's established TCP connections to `port` (from /proc: its socket inodes, the kernel's tables). */
async function connectionsTo(port: number): Promise<number> {
  const inodes = new Set<string>();
  for (const fd of await readdir("/proc/self/fd")) {
    const link = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode) inodes.add(inode);
  }
  let count = 0;
  for (const table of ["/proc/self/net/tcp", "/proc/self/net/tcp6"]) {
    const rows = (await readFile(table, "utf8").catch(() => "")).split("\n").slice(1);
    for (const row of rows) {
      const f = row.trim().split(/\s+/);
      // f[2] rem_address (hex address:hex port), f[3] state (01 ESTABLISHED), f[9] inode.
      const remotePort = Number.parseInt(f[2]?.split(":")[1] ?? "", 16);
      if (remotePort === port && f[3] === "01" && inodes.has(f[9] ?? "")) count++;
    }
  }
  return count;
}

it("keeps its connections to the API server however many requests and watches it makes", async () => {
  const namespace = "client-connections";
  await ensureNamespace(kube, namespace);
  const kc = new KubeConfig();
  kc.loadFromFile(kube.adminKubeconfig);
  const port = Number(new URL(kube.url).port);
  const client = createKube(kc);
  const before = await connectionsTo(port);
  for (let i = 0; i < 40; i++) {
    await client.customResources.ApiKey.list(namespace);
    await client.leases.get(namespace, "absent").catch(() => undefined);
  }
  for (let i = 0; i < 10; i++) {
    const handle = await client.customResources.ApiKey.watch({ namespace }, () => {});
    handle.stop();
    await handle.done.catch(() => undefined);
  }
  const after = await connectionsTo(port);
  // Sequential requests reuse one kept-alive connection; a stopped watch's is closed and the next opens
  // another, so one or two are open at the end. 90 requests opened 90 before the fix.
  expect(after - before).toBeLessThanOrEqual(2);
  expect(after).toBeGreaterThan(0);
});
