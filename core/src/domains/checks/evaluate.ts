import {
  CHECK_NAMES,
  type CheckName,
  type CheckStatus,
  type DomainRecord,
  type VerificationStatus,
} from "../types.ts";
import type { TxtLookup } from "../verify.ts";

export interface CheckVerdict {
  status: CheckStatus;
  reason: string;
}

export interface ComplianceCheck extends CheckVerdict {
  name: CheckName;
}

/** What the checks are judged from: the stored record checks, the DMARC record found, and two probes. */
export interface CheckInputs {
  domain: DomainRecord;
  /** The TXT records at `_dmarc.<domain>`. */
  dmarc: TxtLookup;
  reverseDns: CheckVerdict;
  tls: CheckVerdict;
}

const FROM_RECORD: Record<VerificationStatus, CheckStatus> = {
  verified: "pass",
  failed: "fail",
  temporary_failure: "unknown",
  pending: "unknown",
};

function fromRecords(
  domain: DomainRecord,
  purpose: "spf" | "mx",
  pass: string,
  absent: string,
): CheckVerdict {
  const record = domain.records.find((r) => r.purpose === purpose);
  if (!record) return { status: "unknown", reason: absent };
  const status = FROM_RECORD[record.status];
  return { status, reason: status === "pass" ? pass : (record.reason ?? `${record.name} not checked yet`) };
}

function dkim(domain: DomainRecord): CheckVerdict {
  const active = domain.records.filter((r) => r.purpose === "dkim" && r.required);
  const failing = active.find((r) => r.status !== "verified");
  if (active.length === 0) return { status: "fail", reason: "no active DKIM key" };
  if (failing) {
    return {
      status: FROM_RECORD[failing.status],
      reason: failing.reason ?? `${failing.name} not checked yet`,
    };
  }
  return {
    status: "pass",
    reason:
      `${active.map((r) => r.name).join(", ")} published with the active key; ` +
      `signatures carry d=${domain.name}, aligned with the From domain`,
  };
}

function tagsOf(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0)
      tags.set(
        part.slice(0, eq).trim().toLowerCase(),
        part
          .slice(eq + 1)
          .trim()
          .toLowerCase(),
      );
  }
  return tags;
}

/** DMARC: one record with a policy; DKIM always aligns (d= is the From domain), SPF only under relaxed aspf. */
function dmarc(domain: DomainRecord, found: TxtLookup): CheckVerdict {
  const name = `_dmarc.${domain.name}`;
  if (found.kind === "error")
    return { status: "unknown", reason: `DNS lookup of ${name} failed (${found.code})` };
  const records =
    found.kind === "found" ? found.records.filter((r) => /^v=DMARC1\s*(;|$)/i.test(r.trim())) : [];
  if (records.length !== 1) {
    return {
      status: "fail",
      reason:
        records.length === 0
          ? `no DMARC record at ${name}: Gmail, Yahoo and Microsoft reject bulk mail without one`
          : `${records.length} DMARC records at ${name}: receivers ignore them all`,
    };
  }
  const tags = tagsOf(records[0] ?? "");
  const policy = tags.get("p");
  if (!policy || !["none", "quarantine", "reject"].includes(policy)) {
    return { status: "fail", reason: `the DMARC record at ${name} has no valid p= policy` };
  }
  const spf =
    tags.get("aspf") === "s"
      ? `SPF not aligned (aspf=s, Return-Path ${domain.returnPathDomain})`
      : `SPF aligned (relaxed, Return-Path ${domain.returnPathDomain})`;
  return { status: "pass", reason: `p=${policy}; DKIM aligned (d=${domain.name}); ${spf}` };
}

/**
 * Judges a domain's compliance from what was looked up: SPF (the Return-Path domain authorises the sending
 * path), DKIM (the active keys are published and aligned), DMARC (a record with a policy, alignment of both),
 * BounceMX (the bounce domain's MX reaches the receiver), ReverseDNS and TLS (the probes' verdicts).
 */
export function evaluateChecks(input: CheckInputs): ComplianceCheck[] {
  const { domain } = input;
  const verdicts: Record<CheckName, CheckVerdict> = {
    SPF: fromRecords(
      domain,
      "spf",
      `${domain.returnPathDomain} authorises the sending path`,
      "no SPF record is suggested for this domain",
    ),
    DKIM: dkim(domain),
    DMARC: dmarc(domain, input.dmarc),
    BounceMX: fromRecords(
      domain,
      "mx",
      `the MX of ${domain.returnPathDomain} reaches the bounce receiver`,
      "no bounce receiver host is configured (MAILROOM_INBOUND_MX_HOST): bounces are not received",
    ),
    ReverseDNS: input.reverseDns,
    TLS: input.tls,
  };
  return CHECK_NAMES.map((name) => ({ name, ...verdicts[name] }));
}
