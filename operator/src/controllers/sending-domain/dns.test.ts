import { buildDnsRecords, type DomainRecord } from "@mailroom/core/domains";
import { describe, expect, it } from "vitest";
import { dnsEndpointRecords } from "./dns.ts";

function domainWith(options: Parameters<typeof buildDnsRecords>[3]): DomainRecord {
  const specs = buildDnsRecords("pub.example.com", "bounces.pub.example.com", [], options);
  return {
    id: "d",
    account: "shop",
    name: "pub.example.com",
    status: "pending",
    statusReason: null,
    returnPathDomain: "bounces.pub.example.com",
    createdAt: new Date(0),
    lastCheckedAt: null,
    verifiedAt: null,
    nextCheckAt: new Date(0),
    dkimKeys: [],
    dkimRotation: { intervalDays: 180, nextRotationAt: null, requestedAt: null },
    checks: [],
    reputation: [],
    records: specs.map((s) => ({
      ...s,
      strings: [s.value],
      status: "pending",
      reason: null,
      lastCheckedAt: null,
    })),
  };
}

describe("dnsEndpointRecords", () => {
  it("carries the bounce domain's MX as `<priority> <host>` and its SPF with the configured mechanisms", () => {
    const records = dnsEndpointRecords(
      domainWith({ mxHost: "mx.mailroom.example", spfMechanisms: ["include:_spf.relay.example"] }),
    );
    expect(records.filter((r) => r.dnsName === "bounces.pub.example.com")).toEqual([
      {
        dnsName: "bounces.pub.example.com",
        recordType: "TXT",
        targets: ['"v=spf1 include:_spf.relay.example ~all"'],
        recordTTL: 3600,
      },
      {
        dnsName: "bounces.pub.example.com",
        recordType: "MX",
        targets: ["10 mx.mailroom.example"],
        recordTTL: 3600,
      },
    ]);
  });

  it("has no MX without a configured receiver host", () => {
    expect(dnsEndpointRecords(domainWith({})).map((r) => r.recordType)).toEqual(["TXT", "TXT"]);
  });
});
