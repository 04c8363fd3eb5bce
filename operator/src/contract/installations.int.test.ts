/**
 * Two installations (two releases, each its own Lease) whose operators both watch a namespace: each resource is
 * reconciled by the one that claimed it; the other leaves it alone and says so (the fake or KUBECONFIG's cluster).
 */
import { listKeys } from "@mailroom/core/keys";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { apiKey } from "../../../test/support/kube-fake/fixtures.ts";
import { CLAIM_ANNOTATION } from "../controllers/sync.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 20_000, interval: 100 };
let h: Harness;
beforeEach(async () => {
  h = await openHarness({
    kubeconfigPath: process.env.KUBECONFIG,
    clusterNamespace: process.env.MAILROOM_CONTRACT_NAMESPACE,
  });
});
afterEach(async () => {
  await h.close();
});

it("lets one installation reconcile a resource; the other leaves it alone and logs why", async () => {
  const first = h.startOperator({ leaseName: h.name("release-a"), identity: "a-0" });
  const second = h.startOperator({ leaseName: h.name("release-b"), identity: "b-0" });
  const name = h.name("key");
  await h.kube.customResources.ApiKey.create(h.namespace, apiKey(name));
  let claimant = "";
  await vi.waitFor(async () => {
    const key = await h.kube.customResources.ApiKey.get(h.namespace, name);
    claimant = key.metadata.annotations?.[CLAIM_ANNOTATION] ?? "";
    expect(claimant).toMatch(new RegExp(`^${h.namespace}/release-[ab]-`));
    expect(key.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  }, WAIT);
  // Each resync, both operators see the resource again: the claimant keeps its key, the other logs and skips.
  for (let i = 0; i < 3; i++) {
    await h.kube.customResources.ApiKey.patch(h.namespace, name, { metadata: { labels: { round: `${i}` } } });
    await Promise.all([first.settled(), second.settled()]);
  }
  await vi.waitFor(() => {
    const skipped = h.logs
      .filter((l) => l.includes("another installation reconciles this resource"))
      .map((l) => JSON.parse(l) as { resource: string; claimedBy: string })
      .filter((l) => l.resource === name);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((l) => l.claimedBy === claimant)).toBe(true);
  }, WAIT);
  // One key issued for this resource, never replaced (a shared cluster namespace may hold other tests' keys).
  const key = await h.kube.customResources.ApiKey.get(h.namespace, name);
  const issued = (await listKeys(h.db.pool, { account: h.namespace })).filter(
    (k) => k.name === `${h.namespace}/${name}`,
  );
  expect(issued.map((k) => [k.keyId, k.revokedAt])).toEqual([[key.status?.keyId, null]]);
});
