/**
 * Deletion contract: each kind that has dependents, deleted in the background (kubectl's default) and in
 * the foreground (`kubectl delete --cascade=foreground`, and GitOps tools that prune that way), under both
 * reclaim policies. Foreground deletion has the garbage collector delete every dependent carrying an
 * ownerReference before the operator's finalizer runs, so a dependent that must outlive its resource
 * (Retain) may never carry one. On a real cluster, the DNSEndpoint CRD must be installed (e2e-kind.sh does).
 */

import { getDomain } from "@mailroom/core/domains";
import { findKeyForAuth } from "@mailroom/core/keys";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiKey, dnsEndpointCrd, sendingDomain } from "../../../test/support/kube-fake/fixtures.ts";
import type { ApiKey, SendingDomain } from "../crds/index.ts";
import { isKubeError } from "../kube/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 15_000, interval: 50 };
type Policy = "Delete" | "Retain";
type Propagation = "Background" | "Foreground" | "Orphan";
const CASES: [Policy, Propagation][] = [
  ["Delete", "Background"],
  ["Delete", "Foreground"],
  ["Delete", "Orphan"],
  ["Retain", "Background"],
  ["Retain", "Foreground"],
  ["Retain", "Orphan"],
];

let h: Harness;
beforeEach(async () => {
  h = await openHarness({
    kubeconfigPath: process.env.KUBECONFIG,
    clusterNamespace: process.env.MAILROOM_CONTRACT_NAMESPACE,
    ownerReferences: true,
  });
  h.fake?.installCrd(dnsEndpointCrd());
});
afterEach(async () => {
  await h.close();
});

const ready = (o: ApiKey | SendingDomain) => o.status?.conditions?.find((c) => c.type === "Ready");
const missing = (promise: Promise<unknown>) =>
  promise.then(
    () => false,
    (e: unknown) => isKubeError(e, 404),
  );

describe("deleting a resource with dependents", () => {
  it.each(CASES)("ApiKey, reclaimPolicy %s, %s deletion", async (policy, propagation) => {
    h.startOperator();
    const keys = h.kube.customResources.ApiKey;
    const name = h.name("key");
    await keys.create(h.namespace, apiKey(name, { reclaimPolicy: policy }));
    let keyId = "";
    await vi.waitFor(async () => {
      const key = await keys.get(h.namespace, name);
      expect(ready(key)?.status).toBe("True");
      keyId = key.status?.keyId ?? "";
    }, WAIT);
    const secret = await h.kube.secrets.get(h.namespace, `${name}-api-key`);
    // Only a Secret that goes with its resource carries an ownerReference to it.
    expect(secret.metadata?.ownerReferences?.map((r) => r.name) ?? []).toEqual(
      policy === "Delete" ? [name] : [],
    );
    await keys.delete(h.namespace, name, { propagationPolicy: propagation });
    await vi.waitFor(async () => expect(await missing(keys.get(h.namespace, name))).toBe(true), WAIT);
    const revoked = (await findKeyForAuth(h.db.pool, keyId))?.key.revokedAt;
    const secretGone = () => missing(h.kube.secrets.get(h.namespace, `${name}-api-key`));
    if (policy === "Delete") {
      expect(revoked).toBeInstanceOf(Date);
      // The real garbage collector deletes dependents after their owner is gone, not with it.
      await vi.waitFor(async () => expect(await secretGone()).toBe(true), WAIT);
    } else {
      // The key is still active, so the Secret holding it must still be there.
      expect(revoked).toBeNull();
      expect(await secretGone()).toBe(false);
    }
  });

  it("drops the Secret's ownerReference as soon as reclaimPolicy becomes Retain, and restores it on Delete", async () => {
    h.startOperator();
    const keys = h.kube.customResources.ApiKey;
    const name = h.name("flip");
    await keys.create(h.namespace, apiKey(name));
    const owners = async () =>
      (await h.kube.secrets.get(h.namespace, `${name}-api-key`)).metadata?.ownerReferences?.length ?? 0;
    await vi.waitFor(async () => expect(await owners()).toBe(1), WAIT);
    await keys.patch(h.namespace, name, { spec: { reclaimPolicy: "Retain" } });
    await vi.waitFor(async () => expect(await owners()).toBe(0), WAIT);
    await keys.patch(h.namespace, name, { spec: { reclaimPolicy: "Delete" } });
    await vi.waitFor(async () => expect(await owners()).toBe(1), WAIT);
  });

  it.each(CASES)(
    "SendingDomain publishing DNS, reclaimPolicy %s, %s deletion",
    async (policy, propagation) => {
      h.startOperator();
      const domains = h.kube.customResources.SendingDomain;
      const name = h.name("dom");
      const domain = `${name}.example.com`;
      await domains.create(
        h.namespace,
        sendingDomain(name, { domain, publishDNS: true, reclaimPolicy: policy }),
      );
      await vi.waitFor(async () => {
        const d = await domains.get(h.namespace, name);
        expect(d.status?.conditions?.find((c) => c.type === "DNSPublished")?.status).toBe("True");
      }, WAIT);
      const endpoint = await h.kube.dnsEndpoints.get(h.namespace, `${name}-dns`);
      expect(endpoint.metadata.ownerReferences?.map((r) => r.name) ?? []).toEqual(
        policy === "Delete" ? [name] : [],
      );
      await domains.delete(h.namespace, name, { propagationPolicy: propagation });
      await vi.waitFor(async () => expect(await missing(domains.get(h.namespace, name))).toBe(true), WAIT);
      const kept = await getDomain(h.db.pool, h.namespace, domain);
      const endpointGone = () => missing(h.kube.dnsEndpoints.get(h.namespace, `${name}-dns`));
      if (policy === "Delete") {
        expect(kept).toBeUndefined();
        await vi.waitFor(async () => expect(await endpointGone()).toBe(true), WAIT);
      } else {
        // The retained domain goes on signing mail: its DKIM records must stay published.
        expect(kept?.name).toBe(domain);
        expect(await endpointGone()).toBe(false);
      }
    },
  );
});
