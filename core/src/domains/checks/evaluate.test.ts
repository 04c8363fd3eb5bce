import { describe, expect, it } from "vitest";
import { buildDnsRecords } from "../records.ts";
import type { DnsRecordState, DomainRecord, VerificationStatus } from "../types.ts";
import { evaluateChecks } from "./evaluate.ts";

const unknown = { status: "unknown" as const, reason: "relay mode" };

function domain(statuses: Partial<Record<string, VerificationStatus>>, mx = true): DomainRecord {
  const specs = buildDnsRecords(
    "shop.test",
    "bounces.shop.test",
    [{ selector: "mr-1", algorithm: "rsa", publicKey: "AAAA" }],
    mx ? { mxHost: "mx.mailroom.test" } : {},
  );
  const records: DnsRecordState[] = specs.map((s) => ({
    ...s,
    strings: [s.value],
    status: statuses[s.purpose] ?? "verified",
    reason: statuses[s.purpose] === "failed" ? `${s.purpose} is wrong` : null,
    lastCheckedAt: null,
  }));
  return {
    id: "d",
    account: "a",
    name: "shop.test",
    status: "verified",
    statusReason: null,
    returnPathDomain: "bounces.shop.test",
    createdAt: new Date(0),
    lastCheckedAt: null,
    verifiedAt: null,
    nextCheckAt: new Date(0),
    dkimKeys: [],
    dkimRotation: { intervalDays: 180, nextRotationAt: null, requestedAt: null },
    checks: [],
    reputation: [],
    records,
  };
}

const dmarcFound = (...records: string[]) => ({ kind: "found" as const, records });
const evaluate = (d: DomainRecord, dmarc: Parameters<typeof evaluateChecks>[0]["dmarc"]) =>
  Object.fromEntries(
    evaluateChecks({
      domain: d,
      dmarc,
      reverseDns: unknown,
      tls: { status: "pass", reason: "STARTTLS" },
    }).map((c) => [c.name, c]),
  );

describe("evaluateChecks", () => {
  it("passes a well-published domain on every record-based check, one entry per name in order", () => {
    const checks = evaluateChecks({
      domain: domain({}),
      dmarc: dmarcFound("v=DMARC1; p=reject; rua=mailto:d@shop.test"),
      reverseDns: unknown,
      tls: { status: "pass", reason: "STARTTLS" },
    });
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ["SPF", "pass"],
      ["DKIM", "pass"],
      ["DMARC", "pass"],
      ["BounceMX", "pass"],
      ["ReverseDNS", "unknown"],
      ["TLS", "pass"],
    ]);
    expect(checks[2]?.reason).toBe(
      "p=reject; DKIM aligned (d=shop.test); SPF aligned (relaxed, Return-Path bounces.shop.test)",
    );
  });

  it("fails DMARC when missing, doubled or without a policy, and says when SPF cannot align", () => {
    const d = domain({});
    expect(evaluate(d, { kind: "none" }).DMARC).toMatchObject({
      status: "fail",
      reason: expect.stringContaining("no DMARC record"),
    });
    expect(evaluate(d, dmarcFound("v=DMARC1; p=none", "v=DMARC1; p=reject")).DMARC?.status).toBe("fail");
    expect(evaluate(d, dmarcFound("v=DMARC1; rua=mailto:x@y")).DMARC?.reason).toContain("no valid p=");
    expect(evaluate(d, dmarcFound("v=DMARC1; p=quarantine; aspf=s")).DMARC).toMatchObject({
      status: "pass",
      reason: expect.stringContaining("SPF not aligned (aspf=s"),
    });
    expect(evaluate(d, { kind: "error", code: "ESERVFAIL" }).DMARC?.status).toBe("unknown");
  });

  it("carries the record's reason for SPF and DKIM, and is unknown on a DNS outage or without a bounce host", () => {
    const failed = evaluate(domain({ spf: "failed", dkim: "failed" }), dmarcFound("v=DMARC1; p=none"));
    expect(failed.SPF).toEqual({ name: "SPF", status: "fail", reason: "spf is wrong" });
    expect(failed.DKIM).toEqual({ name: "DKIM", status: "fail", reason: "dkim is wrong" });
    expect(evaluate(domain({ spf: "temporary_failure" }), { kind: "none" }).SPF?.status).toBe("unknown");
    expect(evaluate(domain({}, false), { kind: "none" }).BounceMX).toMatchObject({
      status: "unknown",
      reason: expect.stringContaining("MAILROOM_INBOUND_MX_HOST"),
    });
  });
});
