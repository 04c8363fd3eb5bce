/**
 * Runtime contract: informers survive dropped and expired watches, and only the Lease holder reconciles.
 * The watch-fault tests need the fake's dropWatches()/compact() and are skipped on a real cluster.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiKey } from "../../../test/support/kube-fake/fixtures.ts";
import type { ApiKey } from "../crds/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 15_000, interval: 50 };
const onCluster = Boolean(process.env.KUBECONFIG);
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

const ready = (k: ApiKey) => k.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
async function expectReady(name: string) {
  await vi.waitFor(async () => {
    expect(ready(await h.kube.customResources.ApiKey.get(h.namespace, name))).toBe(true);
  }, WAIT);
}
async function metric(registry: { getSingleMetricAsString(n: string): Promise<string> }, name: string) {
  return registry.getSingleMetricAsString(name);
}

describe.skipIf(onCluster)("informer supervision (needs the fake's fault injection)", () => {
  it("keeps reconciling after watches are dropped mid-stream, cleanly or abruptly", async () => {
    const operator = h.startOperator();
    const a = h.name("a");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(a));
    await expectReady(a);
    expect(h.fake?.dropWatches()).toBeGreaterThan(0);
    const b = h.name("b");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(b));
    await expectReady(b);
    await vi.waitFor(() => expect(h.fake?.openWatches()).toBeGreaterThan(0), WAIT);
    h.fake?.dropWatches({ abrupt: true });
    const c = h.name("c");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(c));
    await expectReady(c);
    expect(await metric(operator.registry, "mailroom_operator_informer_restarts_total")).toMatch(
      /kind="ApiKey",reason="error"\} [1-9]/,
    );
  });

  it("relists when the resumed watch answers 410 Expired, and goes on reconciling", async () => {
    const operator = h.startOperator();
    const a = h.name("a");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(a));
    await expectReady(a);
    await vi.waitFor(() => expect(h.fake?.openWatches()).toBeGreaterThan(0), WAIT);
    // The informer resumes from its last resourceVersion, which compaction has just made too old.
    h.fake?.compact();
    h.fake?.dropWatches();
    const b = h.name("b");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(b));
    await expectReady(b);
    expect(await metric(operator.registry, "mailroom_operator_informer_restarts_total")).toMatch(
      /kind="ApiKey",reason="expired"\} [1-9]/,
    );
  });
});

describe("leader election", () => {
  it("lets only the Lease holder reconcile, and the standby take over when the leader dies", async () => {
    const first = h.startOperator();
    await vi.waitFor(() => expect(first.isLeader()).toBe(true), WAIT);
    const second = h.startOperator();
    const a = h.name("a");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(a));
    await expectReady(a);
    await first.settled();
    expect(second.isLeader()).toBe(false);
    expect(await metric(second.registry, "mailroom_operator_reconciles_total")).not.toMatch(/kind="ApiKey"/);
    expect(await metric(first.registry, "mailroom_operator_reconciles_total")).toMatch(
      /kind="ApiKey",result="success"\} [1-9]/,
    );
    // A crash: the leader stops without releasing; the standby waits out the lease (2 s) and takes over.
    const diedAt = Date.now();
    await first.stop({ release: false });
    await vi.waitFor(() => expect(second.isLeader()).toBe(true), WAIT);
    expect(Date.now() - diedAt).toBeGreaterThanOrEqual(1_500);
    const b = h.name("b");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(b));
    await expectReady(b);
    expect(await metric(second.registry, "mailroom_operator_leader")).toMatch(/mailroom_operator_leader 1/);
    expect(await metric(first.registry, "mailroom_operator_leader")).toMatch(/mailroom_operator_leader 0/);
  });

  it("hands over at once when the leader stops cleanly and releases the Lease", async () => {
    const first = h.startOperator({ leaderElection: { leaseDurationMs: 30_000, retryPeriodMs: 100 } });
    await vi.waitFor(() => expect(first.isLeader()).toBe(true), WAIT);
    const second = h.startOperator({ leaderElection: { leaseDurationMs: 30_000, retryPeriodMs: 100 } });
    await first.stop();
    await vi.waitFor(() => expect(second.isLeader()).toBe(true), { timeout: 5_000, interval: 50 });
  });
});
