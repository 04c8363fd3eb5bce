/**
 * The operator's changes in the audit trail (issue 33 item 4, ADR 0062): each row names the custom resource
 * that made it (`Kind/namespace/name`), a spec edit is one row, and resyncs that change nothing add none.
 */
import type { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiKey, template, webhookEndpoint } from "../../../test/support/kube-fake/fixtures.ts";
import type { AccountPolicy } from "../crds/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 15_000, interval: 50 };
let h: Harness;
beforeEach(async () => {
  h = await openHarness();
});
afterEach(async () => {
  await h.close();
});

async function reconciles(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric("mailroom_operator_reconciles_total")?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

const trail = async (ns: string) =>
  (
    await h.db.pool.query<{ actor_kind: string; actor: string; action: string }>(
      "select actor_kind, actor, action from audit_events where account = $1 order by id",
      [ns],
    )
  ).rows;

describe("changes from custom resources", () => {
  it("are recorded as the resource's, once per change, not per resync", async () => {
    const ns = h.namespace;
    const crs = h.kube.customResources;
    const [key, tpl, hook] = [h.name("key"), h.name("tpl"), h.name("hook")];
    const operator = h.startOperator({ resyncMs: 100 });
    await crs.ApiKey.create(ns, apiKey(key));
    await crs.Template.create(ns, template(tpl));
    await crs.WebhookEndpoint.create(ns, webhookEndpoint(hook));
    await crs.AccountPolicy.create(ns, {
      apiVersion: "mailroom.dev/v1alpha1",
      kind: "AccountPolicy",
      metadata: { name: "limits" },
      spec: { limits: { emailsPerSecond: 20 } },
    } as AccountPolicy);
    const ready = async (
      read: () => Promise<{ status?: { conditions?: { type: string; status: string }[] } }>,
    ) => expect((await read()).status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    await vi.waitFor(async () => {
      await ready(() => crs.ApiKey.get(ns, key));
      await ready(() => crs.Template.get(ns, tpl));
      await ready(() => crs.WebhookEndpoint.get(ns, hook));
      await ready(() => crs.AccountPolicy.get(ns, "limits"));
    }, WAIT);
    await crs.Template.patch(ns, tpl, { spec: { subject: "Changed {{name}}" } });
    await vi.waitFor(async () => {
      expect((await trail(ns)).map((r) => r.action)).toContain("template.updated");
    }, WAIT);
    // Resyncs every 100 ms: let each kind be reconciled several more times; none of them may record anything.
    const start = await reconciles(operator.registry);
    await vi.waitFor(
      async () => expect(await reconciles(operator.registry)).toBeGreaterThan(start + 9),
      WAIT,
    );
    expect((await trail(ns)).map((r) => [r.actor_kind, r.actor, r.action]).sort()).toEqual(
      [
        ["operator", `ApiKey/${ns}/${key}`, "key.created"],
        ["operator", `Template/${ns}/${tpl}`, "template.created"],
        ["operator", `Template/${ns}/${tpl}`, "template.updated"],
        ["operator", `WebhookEndpoint/${ns}/${hook}`, "webhook.created"],
        ["operator", `AccountPolicy/${ns}/limits`, "account.policy_applied"],
      ].sort(),
    );

    await crs.ApiKey.delete(ns, key);
    await crs.Template.delete(ns, tpl);
    await crs.WebhookEndpoint.delete(ns, hook);
    await vi.waitFor(async () => {
      const actions = (await trail(ns)).map((r) => `${r.actor} ${r.action}`);
      expect(actions).toContain(`ApiKey/${ns}/${key} key.revoked`);
      expect(actions).toContain(`Template/${ns}/${tpl} template.deleted`);
      expect(actions).toContain(`WebhookEndpoint/${ns}/${hook} webhook.deleted`);
    }, WAIT);
  });
});
