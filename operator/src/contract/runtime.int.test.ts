/**
 * Runtime contract: informers survive dropped and expired watches, and only the Lease holder reconciles.
 * The watch-fault tests need the fake's dropWatches()/compact() and are skipped on a real cluster.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiKey } from "../../../test/support/kube-fake/fixtures.ts";
import { apiKeyController } from "../controllers/api-key/index.ts";
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
/** The keys of a JSON object line at the top level, duplicates included (JSON.parse would keep the last). */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === "\\" ? 2 : 1;
      const isKey =
        depth === 1 &&
        line
          .slice(end + 1)
          .trimStart()
          .startsWith(":");
      if (isKey) keys.push(JSON.parse(line.slice(i, end + 1)) as string);
      i = end;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return keys;
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
    // Ready can come from the first list, before the watch is open.
    await vi.waitFor(() => expect(h.fake?.openWatches()).toBeGreaterThan(0), WAIT);
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

  it("resumes a quiet watch past client-node's inactivity timer, with no relist and no error", async () => {
    await h.close();
    // client-node's timer is 30 s; a real API server sends nothing on a quiet watch for far longer.
    h = await openHarness({ kubeOptions: { watchInactivityMs: 1_000 } });
    const operator = h.startOperator();
    const a = h.name("a");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(a));
    await expectReady(a);
    const path = "/apis/mailroom.dev/v1alpha1/apikeys";
    const requests = (watch: boolean) =>
      (h.fake?.requests ?? []).filter((r) => r.method === "GET" && r.path === path && r.watch === watch);
    const watched = requests(true).length;
    // Three more idle periods: each ends the stream, each is resumed from the last resourceVersion.
    await vi.waitFor(() => expect(requests(true).length).toBeGreaterThanOrEqual(watched + 3), WAIT);
    expect(requests(false)).toHaveLength(1);
    const resumedFrom = requests(true)
      .slice(1)
      .map((r) => r.query.resourceVersion);
    expect(resumedFrom.every((rv) => rv !== undefined && rv !== "0")).toBe(true);
    expect(await metric(operator.registry, "mailroom_operator_informer_restarts_total")).not.toMatch(
      /kind="ApiKey"/,
    );
    expect(h.logs.filter((l) => l.includes("watch failed"))).toEqual([]);
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

  it.skipIf(onCluster)(
    "drops leadership at the renew deadline when Lease calls hang, before a standby leads",
    async () => {
      const stalled = h.kubeAs("stalled");
      const first = h.startOperator({ kube: stalled });
      await vi.waitFor(() => expect(first.isLeader()).toBe(true), WAIT);
      const second = h.startOperator({ kube: h.kubeAs("standby") });
      // From now on the leader's Lease requests get no answer (a partition, or an API server that hangs).
      const release = h.fake?.hold((r) => r.user === "stalled" && r.path.includes("/leases"));
      const overlaps: string[] = [];
      const sampler = setInterval(() => {
        if (first.isLeader() && second.isLeader()) overlaps.push(new Date().toISOString());
      }, 10);
      try {
        await vi.waitFor(() => expect(second.isLeader()).toBe(true), WAIT);
        expect(first.isLeader()).toBe(false);
        expect(overlaps).toEqual([]);
        expect(await metric(first.registry, "mailroom_operator_leader")).toMatch(
          /mailroom_operator_leader 0/,
        );
      } finally {
        clearInterval(sampler);
        release?.();
      }
    },
  );

  it.skipIf(onCluster)(
    "reports a lost Lease and fails healthz while a reconcile in flight keeps the old leader stepping down",
    async () => {
      let unblock: () => void = () => {};
      const blocked = new Promise<void>((resolve) => {
        unblock = resolve;
      });
      let entered = false;
      const lost: string[] = [];
      const first = h.startOperator({
        kube: h.kubeAs("stalled"),
        controllers: {
          ApiKey: {
            ...apiKeyController,
            async reconcile() {
              entered = true;
              await blocked;
              throw new Error("unblocked");
            },
          },
        },
        onLostLease: () => lost.push("lost"),
      });
      await vi.waitFor(() => expect(first.isLeader()).toBe(true), WAIT);
      expect(first.healthy()).toBe(true);
      await h.kube.customResources.ApiKey.create(h.namespace, apiKey(h.name("stuck")));
      await vi.waitFor(() => expect(entered).toBe(true), WAIT);
      const release = h.fake?.hold((r) => r.user === "stalled" && r.path.includes("/leases"));
      try {
        await vi.waitFor(() => expect(lost).toEqual(["lost"]), WAIT);
        expect(first.isLeader()).toBe(false);
        // The queue still waits for the stuck reconcile: a lease duration after the last renewal, unhealthy.
        await vi.waitFor(() => expect(first.healthy()).toBe(false), WAIT);
      } finally {
        release?.();
        unblock();
      }
    },
  );

  it("writes one name per log line (pino's own), so log pipelines keep the logger's name", async () => {
    h.startOperator();
    const a = h.name("a");
    await h.kube.customResources.ApiKey.create(h.namespace, apiKey(a));
    await expectReady(a);
    await h.kube.customResources.ApiKey.delete(h.namespace, a);
    await vi.waitFor(() => expect(h.logs.some((l) => l.includes('"msg":"finalized"'))).toBe(true), WAIT);
    for (const line of h.logs)
      expect(
        topLevelKeys(line).filter((k) => k === "name"),
        line,
      ).toHaveLength(1);
  });

  it("hands over at once when the leader stops cleanly and releases the Lease", async () => {
    const first = h.startOperator({ leaderElection: { leaseDurationMs: 30_000, retryPeriodMs: 100 } });
    await vi.waitFor(() => expect(first.isLeader()).toBe(true), WAIT);
    const second = h.startOperator({ leaderElection: { leaseDurationMs: 30_000, retryPeriodMs: 100 } });
    await first.stop();
    await vi.waitFor(() => expect(second.isLeader()).toBe(true), { timeout: 5_000, interval: 50 });
  });
});
