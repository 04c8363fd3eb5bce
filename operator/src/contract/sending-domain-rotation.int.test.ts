/**
 * SendingDomain DKIM rotation (issue 29): the operator hands spec.dkim.rotation and the rotate-now
 * annotation to core, publishes every key core lists (pending and retiring ones included) in the
 * DNSEndpoint, and reports status.dkim, the DKIMRotation condition and one Event per step. The worker's part
 * (core's rotateDomain) is run here directly against a real DNS server fed from the DNSEndpoint, as
 * external-dns would. Needs the fake's installCrd for the DNSEndpoint CRD, so skipped on a real cluster.
 */
import {
  getDomain,
  makeTxtLookup,
  type RotationDeps,
  recordChecks,
  rotateDomain,
} from "@mailroom/core/domains";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { markDomainVerified } from "../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import { dnsEndpointCrd, sendingDomain } from "../../../test/support/kube-fake/fixtures.ts";
import type { SendingDomain } from "../crds/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 10_000, interval: 50 };
const DAY = 86_400_000;
const onCluster = Boolean(process.env.KUBECONFIG);
let h: Harness;
let dns: TestDnsServer;
beforeEach(async () => {
  h = await openHarness({ kubeconfigPath: process.env.KUBECONFIG, dnsDiscoveryAbsentRecheckMs: 200 });
  dns = await startDnsServer();
});
afterEach(async () => {
  await h.close();
  await dns.close();
});

const cond = (d: SendingDomain, type: string) => d.status?.conditions?.find((c) => c.type === type);
const events = async (name: string, reason: string) =>
  (await h.kube.events.list(h.namespace)).items.filter(
    (e) => e.involvedObject.name === name && e.reason === reason,
  );
/** What external-dns would do: serve exactly the DNSEndpoint's TXT records. */
async function syncDns(endpointName: string, previous: string[]): Promise<string[]> {
  const endpoint = await h.kube.dnsEndpoints.get(h.namespace, endpointName);
  for (const name of previous) dns.removeName(name);
  const names: string[] = [];
  for (const e of (endpoint.spec.endpoints ?? []).filter((e) => e.recordType === "TXT")) {
    const strings = [...(e.targets[0] ?? "").matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? "");
    dns.setTxt(e.dnsName, strings);
    names.push(e.dnsName);
  }
  return names;
}

describe.skipIf(onCluster)("SendingDomain DKIM rotation", () => {
  it("rotates on the annotation: publishes the new key, reports each step, withdraws the old one", async () => {
    h.fake?.installCrd(dnsEndpointCrd());
    h.startOperator({ resyncMs: 200 });
    const name = h.name("rot");
    const domainName = "rot.example.com";
    await h.kube.customResources.SendingDomain.create(
      h.namespace,
      sendingDomain(name, {
        domain: domainName,
        publishDNS: true,
        dkim: { selector: "first", algorithms: ["rsa-2048"], rotation: { intervalDays: 30 } },
      }),
    );
    const get = () => h.kube.customResources.SendingDomain.get(h.namespace, name);
    await vi.waitFor(async () => {
      const d = await get();
      expect(d.status?.dkim?.active?.map((k) => k.selector)).toEqual(["first"]);
      expect(cond(d, "DKIMRotation")).toMatchObject({ status: "True", reason: "Current" });
    }, WAIT);
    const domain = await getDomain(h.db.pool, h.namespace, domainName);
    if (!domain) throw new Error("no domain");
    expect(domain.dkimRotation.intervalDays).toBe(30);
    await markDomainVerified(h.db.pool, domain.id);
    let served = await syncDns(`${name}-dns`, []);

    const worker: RotationDeps = {
      db: h.db.pool,
      kek: h.context.kek,
      lookup: makeTxtLookup({ servers: [dns.address], timeoutMs: 500, tries: 1 }),
      policy: { settleMs: 0, retireAfterMs: 12 * DAY, recheckMs: 60_000 },
    };
    await h.kube.customResources.SendingDomain.patch(h.namespace, name, {
      metadata: { annotations: { "mailroom.dev/rotate-dkim": "2026-11-28" } },
    });
    await vi.waitFor(async () => {
      expect((await events(name, "DKIMRotationRequested")).length).toBeGreaterThanOrEqual(1);
    }, WAIT);
    expect((await rotateDomain(worker, domain.id))?.applied.map((s) => s.kind)).toEqual(["generate"]);

    // The new key reaches the DNSEndpoint and status; it does not sign until DNS serves it.
    let pending = "";
    await vi.waitFor(async () => {
      const d = await get();
      pending = d.status?.dkim?.pending?.[0]?.selector ?? "";
      expect(pending).toMatch(/^mr-\d{6}-[a-z0-9]{6}$/);
      expect(cond(d, "DKIMRotation")).toMatchObject({ status: "False", reason: "AwaitingDNS" });
      const endpoint = await h.kube.dnsEndpoints.get(h.namespace, `${name}-dns`);
      expect((endpoint.spec.endpoints ?? []).map((e) => e.dnsName)).toContain(
        `${pending}._domainkey.${domainName}`,
      );
      expect((await events(name, "DKIMRotationStarted")).length).toBeGreaterThanOrEqual(1);
    }, WAIT);
    expect(cond(await get(), "Ready")?.status).toBe("True");

    served = await syncDns(`${name}-dns`, served);
    expect((await rotateDomain(worker, domain.id))?.applied.map((s) => s.kind)).toEqual(["activate"]);
    await vi.waitFor(async () => {
      const d = await get();
      expect(d.status?.dkim?.active?.map((k) => k.selector)).toEqual([pending]);
      expect(d.status?.dkim?.retiring).toEqual([
        expect.objectContaining({ selector: "first", algorithm: "rsa-2048", until: expect.any(String) }),
      ]);
      expect(cond(d, "DKIMRotation")).toMatchObject({ status: "True", reason: "Retiring" });
      // The selector named in the spec is gone from signing by design: no SelectorImmutable.
      expect(cond(d, "Synced")?.status).toBe("True");
      const endpoint = await h.kube.dnsEndpoints.get(h.namespace, `${name}-dns`);
      expect((endpoint.spec.endpoints ?? []).map((e) => e.dnsName)).toContain(
        `first._domainkey.${domainName}`,
      );
      expect((await events(name, "DKIMRotated"))[0]?.message).toContain(`signing with ${pending}`);
    }, WAIT);

    const later = new Date(Date.now() + 13 * DAY);
    expect((await rotateDomain(worker, domain.id, later))?.applied.map((s) => s.kind)).toEqual(["withdraw"]);
    await vi.waitFor(async () => {
      const d = await get();
      expect(d.status?.dkim?.retiring).toEqual([]);
      const endpoint = await h.kube.dnsEndpoints.get(h.namespace, `${name}-dns`);
      expect((endpoint.spec.endpoints ?? []).map((e) => e.dnsName)).not.toContain(
        `first._domainkey.${domainName}`,
      );
      expect((await events(name, "DKIMKeyWithdrawn"))[0]).toMatchObject({ type: "Normal" });
    }, WAIT);

    // The same annotation again rotates nothing.
    await h.kube.customResources.SendingDomain.patch(h.namespace, name, { spec: { publishDNS: true } });
    expect((await getDomain(h.db.pool, h.namespace, domainName))?.dkimRotation.requestedAt).toBeNull();
  });

  it("takes spec.dkim.rotation.intervalDays to Postgres, 180 by default and 0 for off", async () => {
    h.startOperator({ resyncMs: 200 });
    const name = h.name("int");
    await h.kube.customResources.SendingDomain.create(
      h.namespace,
      sendingDomain(name, { domain: "int.example.com" }),
    );
    await vi.waitFor(async () => {
      expect((await getDomain(h.db.pool, h.namespace, "int.example.com"))?.dkimRotation.intervalDays).toBe(
        180,
      );
    }, WAIT);
    await h.kube.customResources.SendingDomain.patch(h.namespace, name, {
      spec: { dkim: { rotation: { intervalDays: 0 } } },
    });
    await vi.waitFor(async () => {
      expect((await getDomain(h.db.pool, h.namespace, "int.example.com"))?.dkimRotation.intervalDays).toBe(0);
      const d = await h.kube.customResources.SendingDomain.get(h.namespace, name);
      expect(cond(d, "DKIMRotation")?.message).toBe("scheduled rotation is off");
    }, WAIT);
  });
});

describe("SendingDomain compliance", () => {
  it("reports the domain's checks as the Compliant condition, with a Warning when one fails", async () => {
    h.startOperator({ resyncMs: 200 });
    const name = h.name("cmp");
    await h.kube.customResources.SendingDomain.create(
      h.namespace,
      sendingDomain(name, { domain: "cmp.example.com" }),
    );
    const get = () => h.kube.customResources.SendingDomain.get(h.namespace, name);
    await vi.waitFor(async () => {
      expect(cond(await get(), "Compliant")).toMatchObject({ status: "Unknown", reason: "NotChecked" });
    }, WAIT);
    const domain = await getDomain(h.db.pool, h.namespace, "cmp.example.com");
    if (!domain) throw new Error("no domain");
    const pass = (n: "SPF" | "DKIM" | "DMARC") => ({ name: n, status: "pass" as const, reason: "ok" });
    await recordChecks(h.db.pool, domain, [pass("SPF"), pass("DKIM"), pass("DMARC")], new Date());
    await vi.waitFor(async () => {
      expect(cond(await get(), "Compliant")).toMatchObject({ status: "True", reason: "ChecksPass" });
      expect((await get()).status?.checks?.map((c) => `${c.name}=${c.status}`)).toEqual([
        "SPF=pass",
        "DKIM=pass",
        "DMARC=pass",
      ]);
    }, WAIT);
    await recordChecks(
      h.db.pool,
      domain,
      [pass("SPF"), pass("DKIM"), { name: "DMARC", status: "fail", reason: "no DMARC record" }],
      new Date(),
    );
    await vi.waitFor(async () => {
      expect(cond(await get(), "Compliant")).toMatchObject({
        status: "False",
        reason: "CheckFailing",
        message: "DMARC: no DMARC record",
      });
      // The same checks as a list besides the condition, one entry per name, in core's order.
      expect((await get()).status?.checks).toEqual([
        { name: "SPF", status: "pass", reason: "ok", lastChecked: expect.any(String) },
        { name: "DKIM", status: "pass", reason: "ok", lastChecked: expect.any(String) },
        { name: "DMARC", status: "fail", reason: "no DMARC record", lastChecked: expect.any(String) },
      ]);
      expect((await events(name, "CheckFailing")).length).toBeGreaterThanOrEqual(1);
    }, WAIT);
  });
});
