import { describe, expect, it, vi } from "vitest";
import type { DnsEndpoint } from "../../../operator/src/external-dns.ts";
import type { Kube } from "../../../operator/src/kube/index.ts";
import { dnsEndpointCrd, sendingDomain } from "./fixtures.ts";
import type { KubeFake } from "./index.ts";
import { kubeErrorOf, useKubeFake } from "./test-harness.ts";

let fake: KubeFake;
let kube: Kube;
useKubeFake((f, k) => {
  fake = f;
  kube = k;
});

const endpoint = (name: string, extra: Record<string, unknown> = {}): DnsEndpoint => ({
  apiVersion: "externaldns.k8s.io/v1alpha1",
  kind: "DNSEndpoint",
  metadata: { name },
  spec: {
    endpoints: [{ dnsName: "_dmarc.example.com", recordType: "TXT", targets: ['"v=DMARC1; p=none"'] }],
  },
  ...extra,
});

describe("kube-fake CRDs installed at runtime (external-dns's DNSEndpoint)", () => {
  it("answers 404 for a CRD's group and resources until it is installed, and again once uninstalled", async () => {
    expect(await kube.discovery.resourcesOf("externaldns.k8s.io", "v1alpha1")).toBeUndefined();
    const missing = await kubeErrorOf(kube.dnsEndpoints.get("default", "x"));
    expect(missing).toMatchObject({ code: 404, reason: "NotFound" });
    expect(missing.message).toMatch(/could not find the requested resource/);
    expect((await kubeErrorOf(kube.dnsEndpoints.create("default", endpoint("x")))).code).toBe(404);

    fake.installCrd(dnsEndpointCrd());
    expect(await kube.discovery.resourcesOf("externaldns.k8s.io", "v1alpha1")).toEqual([
      "dnsendpoints",
      "dnsendpoints/status",
    ]);
    // An installed CRD's missing object is the ordinary, named 404.
    expect((await kubeErrorOf(kube.dnsEndpoints.get("default", "x"))).message).toBe(
      'dnsendpoints.externaldns.k8s.io "x" not found',
    );
    await kube.dnsEndpoints.create("default", endpoint("x"));
    expect(() => fake.installCrd(dnsEndpointCrd())).toThrow(/already serves/);

    fake.uninstallCrd("dnsendpoints.externaldns.k8s.io");
    expect(await kube.discovery.resourcesOf("externaldns.k8s.io", "v1alpha1")).toBeUndefined();
    expect((await kubeErrorOf(kube.dnsEndpoints.get("default", "x"))).message).toMatch(/could not find/);
    fake.installCrd(dnsEndpointCrd());
    // Deleting a CRD deletes its objects.
    expect((await kubeErrorOf(kube.dnsEndpoints.get("default", "x"))).code).toBe(404);
  });

  it("validates and prunes the installed kind by its schema, keeping map keys such as labels", async () => {
    fake.installCrd(dnsEndpointCrd());
    const created = await kube.dnsEndpoints.create("default", {
      ...endpoint("x"),
      spec: {
        endpoints: [
          {
            dnsName: "a.example.com",
            recordType: "TXT",
            targets: ['"hello"'],
            recordTTL: 300,
            labels: { owner: "mailroom", "team.example/x": "y" },
            ttl: 60,
          } as never,
        ],
      },
    });
    expect(created.spec.endpoints).toEqual([
      {
        dnsName: "a.example.com",
        recordType: "TXT",
        targets: ['"hello"'],
        recordTTL: 300,
        labels: { owner: "mailroom", "team.example/x": "y" },
      },
    ]);
    const invalid = await kubeErrorOf(
      kube.dnsEndpoints.create("default", {
        ...endpoint("y"),
        spec: { endpoints: [{ dnsName: "a.example.com", recordType: "SPF" as never, targets: ["x"] }] },
      }),
    );
    expect(invalid).toMatchObject({ code: 422, reason: "Invalid" });
    expect(invalid.message).toMatch(/spec\.endpoints\[0\]\.recordType: Unsupported value: "SPF"/);
  });

  it("garbage-collects a DNSEndpoint with its owner", async () => {
    fake.installCrd(dnsEndpointCrd());
    const owner = await kube.customResources.SendingDomain.create("default", sendingDomain("owner"));
    await kube.dnsEndpoints.create("default", {
      ...endpoint("owned"),
      metadata: {
        name: "owned",
        ownerReferences: [
          {
            apiVersion: "mailroom.dev/v1alpha1",
            kind: "SendingDomain",
            name: "owner",
            uid: owner.metadata.uid ?? "",
            controller: true,
          },
        ],
      },
    });
    await kube.customResources.SendingDomain.delete("default", "owner");
    // The collector works a moment after the change, as kube-controller-manager's does.
    await vi.waitFor(
      async () => expect((await kubeErrorOf(kube.dnsEndpoints.get("default", "owned"))).code).toBe(404),
      {
        timeout: 5_000,
        interval: 10,
      },
    );
  });
});
