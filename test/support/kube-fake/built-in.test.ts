import { V1MicroTime } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { Kube } from "../../../operator/src/kube/index.ts";
import type { KubeFake } from "./index.ts";
import { kubeErrorOf, useKubeFake } from "./test-harness.ts";

let fake: KubeFake;
let kube: Kube;
useKubeFake((f, k) => {
  fake = f;
  kube = k;
});

/** A request with a body client-node's typed serialisers would not produce (a string where a Date goes). */
async function raw(method: string, path: string, body: unknown): Promise<{ code: number; message: string }> {
  const token = fake.kubeConfig().getCurrentUser()?.token;
  const res = await fetch(`${fake.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { code: res.status, message: ((await res.json()) as { message: string }).message };
}

async function invalid(promise: Promise<unknown>): Promise<string> {
  const err = await kubeErrorOf(promise);
  expect(err.code).toBe(422);
  return err.message;
}

const lease = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name },
  spec: { holderIdentity: "a", leaseDurationSeconds: 15, renewTime: new V1MicroTime(), ...spec },
});

describe("kube-fake validates the built-in kinds as kube-apiserver does", () => {
  it("decodes Lease times as MicroTime (six fractional digits) and wants a positive duration", async () => {
    const created = await kube.leases.create("default", lease("l"));
    expect(String(created.spec?.renewTime)).toMatch(/\.\d{6}Z$/);
    const millis = await raw("PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l", {
      ...lease("l"),
      spec: { holderIdentity: "a", renewTime: "2026-01-01T00:00:00.123Z" },
    });
    expect(millis.code).toBe(400);
    expect(millis.message).toContain(
      'parsing time "2026-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00"',
    );
    expect(await invalid(kube.leases.patch("default", "l", { spec: { leaseDurationSeconds: 0 } }))).toContain(
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
    );
    expect(await invalid(kube.leases.patch("default", "l", { spec: { leaseTransitions: -1 } }))).toContain(
      "spec.leaseTransitions",
    );
  });

  it("validates ownerReferences on every kind: uid, kind and name required, one controller", async () => {
    const owner = { apiVersion: "mailroom.dev/v1alpha1", kind: "ApiKey", name: "k", uid: "u-1" };
    expect(
      await invalid(
        kube.secrets.create("default", {
          metadata: { name: "s1", ownerReferences: [{ ...owner, uid: "" }] },
        }),
      ),
    ).toContain('metadata.ownerReferences.uid: Invalid value: "": uid must not be empty');
    const twice = await invalid(
      kube.secrets.create("default", {
        metadata: {
          name: "s2",
          ownerReferences: [
            { ...owner, controller: true },
            { ...owner, name: "j", uid: "u-2", controller: true },
          ],
        },
      }),
    );
    expect(twice).toContain("Only one reference can have Controller set to true");
  });

  it("keeps a Secret's type and an immutable Secret's data as they are (422)", async () => {
    await kube.secrets.create("default", {
      metadata: { name: "t" },
      type: "example.com/x",
      stringData: { a: "b" },
    });
    const current = await kube.secrets.get("default", "t");
    expect(await invalid(kube.secrets.replace("default", "t", { ...current, type: "Opaque" }))).toContain(
      'type: Invalid value: "Opaque": field is immutable',
    );
    await kube.secrets.create("default", {
      metadata: { name: "i" },
      immutable: true,
      stringData: { a: "b" },
    });
    expect(await invalid(kube.secrets.patch("default", "i", { stringData: { a: "c" } }))).toContain(
      "data: Forbidden: field is immutable when `immutable` is set",
    );
    expect(await invalid(kube.secrets.patch("default", "i", { immutable: false }))).toContain(
      "immutable: Forbidden",
    );
    expect(
      await invalid(kube.secrets.create("default", { metadata: { name: "k" }, stringData: { "a/b": "c" } })),
    ).toContain("a valid config key");
  });

  it("wants an Event in its object's namespace, with times that decode", async () => {
    const event = {
      metadata: { name: "e1" },
      involvedObject: { apiVersion: "v1", kind: "Secret", name: "s", namespace: "other" },
      reason: "Test",
      message: "m",
      type: "Normal",
    };
    expect(await invalid(kube.events.create("default", event))).toContain(
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    );
    const badTime = await raw("POST", "/api/v1/namespaces/default/events", {
      ...event,
      involvedObject: { ...event.involvedObject, namespace: "default" },
      firstTimestamp: "yesterday",
    });
    expect(badTime.code).toBe(400);
    const ok = await kube.events.create("default", {
      ...event,
      involvedObject: { ...event.involvedObject, namespace: "default" },
      firstTimestamp: new Date(),
    });
    expect(ok.metadata?.name).toBe("e1");
  });
});
