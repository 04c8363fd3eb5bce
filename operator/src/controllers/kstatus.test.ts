import { Gauge, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { Template } from "../crds/index.ts";
import { createConditionGauge } from "../runtime/condition-gauge.ts";
import { type Condition, notOk, ok } from "./conditions.ts";
import { CLAIM_ANNOTATION, nextStatus } from "./sync.ts";

const now = new Date("2026-03-01T00:00:00Z");
const object: Template = {
  apiVersion: "mailroom.dev/v1alpha1",
  kind: "Template",
  metadata: { name: "t", namespace: "shop", generation: 3 },
  spec: { subject: "s", text: "t", reclaimPolicy: "Delete" },
};

const conditions = (synced = ok("Synced"), ready = ok("Published"), status?: Template["status"]) =>
  nextStatus({ ...object, ...(status ? { status } : {}) }, { fields: {}, synced, ready }, now)
    .conditions as Condition[];
const find = (list: Condition[], type: string) => list.find((c) => c.type === type);

describe("kstatus conditions", () => {
  it("a Ready resource has neither Reconciling nor Stalled", () => {
    expect(conditions().map((c) => c.type)).toEqual(["Ready", "Synced"]);
  });

  it("progress (a pending verification, a retried error) is Reconciling=True with the blocking reason", () => {
    const pending = conditions(ok("Synced"), notOk("VerificationPending", "publish the records"));
    expect(find(pending, "Reconciling")).toMatchObject({
      status: "True",
      reason: "VerificationPending",
      message: "publish the records",
      observedGeneration: 3,
    });
    expect(find(pending, "Stalled")).toBeUndefined();
    const retried = conditions(notOk("ReconcileError", "connect ECONNREFUSED"), ok("Published"));
    expect(find(retried, "Reconciling")).toMatchObject({ status: "True", reason: "ReconcileError" });
  });

  it("what waits for a person is Stalled=True; Synced speaks before Ready", () => {
    for (const reason of ["Conflict", "SecretNotFound", "Invalid", "KeyRevoked", "VerificationFailed"]) {
      const list = conditions(ok("Synced"), notOk(reason, "why"));
      expect(find(list, "Stalled"), reason).toMatchObject({ status: "True", reason, observedGeneration: 3 });
      expect(find(list, "Reconciling"), reason).toBeUndefined();
    }
    const invalid = conditions(notOk("Invalid", "bad spec"), notOk("VerificationPending", "x"));
    expect(find(invalid, "Stalled")).toMatchObject({ reason: "Invalid", message: "bad spec" });
  });

  it("recovering removes the condition an earlier reconcile set", () => {
    const stalled = conditions(ok("Synced"), notOk("Conflict", "held"));
    const recovered = conditions(ok("Synced"), ok("Published"), {
      observedGeneration: 2,
      conditions: stalled,
    });
    expect(recovered.map((c) => c.type)).toEqual(["Ready", "Synced"]);
    // A merge patch keeps what it does not mention; the list is replaced whole, so Stalled is gone.
    expect(recovered.every((c) => c.observedGeneration === 3)).toBe(true);
  });
});

describe("mailroom_resource_condition", () => {
  const setup = () => {
    const registry = new Registry();
    const gauge = new Gauge({
      name: "mailroom_resource_condition",
      help: "h",
      labelNames: ["kind", "namespace", "name", "type", "status"] as const,
      registers: [registry],
    });
    return { registry, conditions: createConditionGauge(gauge, "mailroom/op") };
  };
  const withStatus = (list: Condition[], claimedBy = "mailroom/op") => ({
    metadata: { namespace: "shop", name: "t", annotations: { [CLAIM_ANNOTATION]: claimedBy } },
    status: { conditions: list },
  });

  it("reports each condition once, moves a changed status, and forgets a deleted resource", async () => {
    const { registry, conditions: gauge } = setup();
    gauge.observe("Template", "shop/t", withStatus(conditions(ok("Synced"), notOk("Conflict", "held"))));
    let text = await registry.metrics();
    expect(text).toContain(
      'mailroom_resource_condition{kind="Template",namespace="shop",name="t",type="Stalled",status="True"} 1',
    );
    expect(text).toContain('type="Ready",status="False"} 1');
    gauge.observe("Template", "shop/t", withStatus(conditions()));
    text = await registry.metrics();
    expect(text).toContain('type="Ready",status="True"} 1');
    expect(text).not.toContain('status="False"');
    expect(text).not.toContain('type="Stalled"');
    gauge.observe("Template", "shop/t", undefined);
    expect(await registry.metrics()).not.toContain('name="t"');
  });

  it("leaves another installation's resource to it, and forgets everything on reset", async () => {
    const { registry, conditions: gauge } = setup();
    gauge.observe("Template", "shop/t", withStatus(conditions(), "other/op"));
    expect(await registry.metrics()).not.toContain('name="t"');
    gauge.observe("ApiKey", "shop/t", withStatus(conditions()));
    expect(await registry.metrics()).toContain('kind="ApiKey"');
    gauge.reset();
    expect(await registry.metrics()).not.toContain('kind="ApiKey"');
  });
});
