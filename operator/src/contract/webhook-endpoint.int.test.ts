/**
 * WebhookEndpoint status.lastDelivery: the outcome of the endpoint's latest delivery attempt, recorded by the
 * real delivery code (core/src/webhooks) and brought into status by reconciles and resyncs. Counts the fake's
 * /status requests, so it is skipped on a real cluster.
 */
import { randomUUID } from "node:crypto";
import { withTransaction } from "@mailroom/core/db";
import {
  claimStreamHeads,
  completeAttempt,
  DEFAULT_RETRY_POLICY,
  disableEndpoint,
  emitEvents,
  fanOutEvents,
  listEndpoints,
  type PostResult,
} from "@mailroom/core/webhooks";
import type { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { webhookEndpoint } from "../../../test/support/kube-fake/fixtures.ts";
import type { WebhookEndpoint } from "../crds/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 10_000, interval: 50 };
let h: Harness;
beforeEach(async () => {
  h = await openHarness();
});
afterEach(async () => {
  await h.close();
});

async function reconciles(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric("mailroom_operator_reconciles_total")?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.kind === "WebhookEndpoint")
    .reduce((sum, v) => sum + v.value, 0);
}

/** One delivery attempt of a new `type` event to the endpoint, through the worker's own functions. */
async function attempt(endpointId: string, type: string, at: Date, result: Omit<PostResult, "durationMs">) {
  const emailId = randomUUID();
  const [eventId = ""] = await withTransaction(h.db.pool, (client) =>
    emitEvents(client, [{ account: h.namespace, type, data: { emailId } }]),
  );
  expect(await fanOutEvents(h.db.pool, [eventId])).toBe(1);
  // A millisecond on: the delivery is due from the fan-out's `now()` (microseconds), which a `new Date()` taken
  // within the same millisecond reads as later (core/src/webhooks/dispatch.int.test.ts, `claimTime`).
  const [claim] = await claimStreamHeads(
    h.db.pool,
    [{ endpointId, stream: `email:${emailId}` }],
    new Date(Date.now() + 1),
    30_000,
  );
  if (claim?.kind !== "deliver") throw new Error(`expected a delivery to claim, got ${claim?.kind}`);
  await completeAttempt(h.db.pool, claim.delivery, { ...result, durationMs: 7 }, DEFAULT_RETRY_POLICY, at);
}

describe.skipIf(Boolean(process.env.KUBECONFIG))("WebhookEndpoint status.lastDelivery", () => {
  it("reports the latest attempt's outcome from Postgres, patching status only when it changed", async () => {
    const operator = h.startOperator({ resyncMs: 200 });
    const name = h.name("hook");
    await h.kube.customResources.WebhookEndpoint.create(
      h.namespace,
      webhookEndpoint(name, { events: ["email.delivered", "email.bounced"] }),
    );
    const read = () => h.kube.customResources.WebhookEndpoint.get(h.namespace, name);
    let endpointId = "";
    await vi.waitFor(async () => {
      expect((await read()).status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
      endpointId = (await listEndpoints(h.db.pool, h.namespace))[0]?.id ?? "";
    }, WAIT);
    const statusPatches = () =>
      (h.fake?.requests ?? []).filter(
        (r) => r.method === "PATCH" && r.path.endsWith(`/webhookendpoints/${name}/status`),
      ).length;
    const afterReconciles = async (count: number) => {
      const start = await reconciles(operator.registry);
      await vi.waitFor(
        async () => expect(await reconciles(operator.registry)).toBeGreaterThanOrEqual(start + count),
        WAIT,
      );
    };
    /**
     * Lets `count` resyncs run and checks they patched nothing. Two reconciles settle first: one that runs
     * on the informer's copy before the last status write reaches it may send that write once more.
     */
    const quietFor = async (count: number) => {
      await afterReconciles(2);
      const patches = statusPatches();
      await afterReconciles(count);
      expect(statusPatches()).toBe(patches);
    };
    await quietFor(3);
    expect((await read()).status?.lastDelivery).toBeUndefined();

    const base = Math.floor(Date.now() / 1000) * 1000;
    const second = (n: number) => new Date(base + n * 1000);
    const iso = (n: number) => second(n).toISOString().replace(".000Z", "Z");
    await attempt(endpointId, "email.bounced", second(1), { statusCode: 503 });
    await vi.waitFor(async () => {
      expect((await read()).status?.lastDelivery).toEqual({
        attemptedAt: iso(1),
        outcome: "Failed",
        eventType: "email.bounced",
        httpStatus: 503,
        message: "HTTP 503",
      });
    }, WAIT);
    await quietFor(3);

    await attempt(endpointId, "email.delivered", second(2), { statusCode: 204 });
    await vi.waitFor(async () => {
      expect((await read()).status?.lastDelivery).toEqual({
        attemptedAt: iso(2),
        outcome: "Succeeded",
        eventType: "email.delivered",
        httpStatus: 204,
      });
    }, WAIT);

    await attempt(endpointId, "email.delivered", second(3), { error: "connect ECONNREFUSED 127.0.0.1:9" });
    await vi.waitFor(async () => {
      expect((await read()).status?.lastDelivery).toEqual({
        attemptedAt: iso(3),
        outcome: "Failed",
        eventType: "email.delivered",
        message: "connect ECONNREFUSED 127.0.0.1:9",
      });
    }, WAIT);
    // The rest of status came through untouched.
    expect((await read()).status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });
});

describe("WebhookEndpoint Secret ownership and auto-disable", () => {
  const hooks = () => h.kube.customResources.WebhookEndpoint;
  const ready = (w: WebhookEndpoint) => w.status?.conditions?.find((c) => c.type === "Ready");

  it("never overwrites (nor deletes) a Secret of its generated name that it does not manage", async () => {
    h.startOperator();
    const name = h.name("hook");
    await h.kube.secrets.create(h.namespace, {
      metadata: { name: `${name}-webhook-secret` },
      stringData: { other: "value" },
    });
    await hooks().create(h.namespace, webhookEndpoint(name));
    await vi.waitFor(async () => {
      expect(ready(await hooks().get(h.namespace, name))).toMatchObject({
        status: "False",
        reason: "SecretConflict",
      });
    }, WAIT);
    await hooks().delete(h.namespace, name);
    await vi.waitFor(async () => {
      expect(
        await hooks()
          .get(h.namespace, name)
          .then(
            () => "there",
            () => "gone",
          ),
      ).toBe("gone");
    }, WAIT);
    const kept = await h.kube.secrets.get(h.namespace, `${name}-webhook-secret`);
    expect(Object.keys(kept.data ?? {})).toEqual(["other"]);
  });

  it("shows an endpoint Mailroom disabled, keeps it disabled on resync, and enables it on a spec change", async () => {
    const operator = h.startOperator({ resyncMs: 200 });
    const name = h.name("gone");
    await hooks().create(h.namespace, webhookEndpoint(name));
    await vi.waitFor(async () => {
      const hook = await hooks().get(h.namespace, name);
      expect(ready(hook)?.status).toBe("True");
      expect(hook.status?.active).toBe(true);
    }, WAIT);
    const [endpoint] = await listEndpoints(h.db.pool, h.namespace);
    await disableEndpoint(h.db.pool, endpoint?.id ?? "", "the receiver answered 410 Gone");
    await vi.waitFor(async () => {
      const hook = await hooks().get(h.namespace, name);
      expect(hook.status).toMatchObject({ active: false, disabledReason: "the receiver answered 410 Gone" });
      expect(ready(hook)?.reason).toBe("AutoDisabled");
    }, WAIT);
    const start = await reconciles(operator.registry);
    await vi.waitFor(
      async () => expect(await reconciles(operator.registry)).toBeGreaterThan(start + 3),
      WAIT,
    );
    expect((await listEndpoints(h.db.pool, h.namespace))[0]?.enabled).toBe(false);
    await hooks().patch(h.namespace, name, { spec: { description: "receiver fixed" } });
    await vi.waitFor(async () => {
      const hook = await hooks().get(h.namespace, name);
      expect(hook.status?.active).toBe(true);
      expect(hook.status?.disabledReason).toBeUndefined();
    }, WAIT);
  });
});
