import type { Queryable } from "../db/pool.ts";
import type { TlsPolicyType, TlsResultType } from "./outcome.ts";

/** Who reports (RFC 8460 §4.1): the organisation, where to reach it, and the submitter's domain. */
export interface Reporter {
  organizationName: string;
  contactInfo: string;
  /** The reporting domain: `TLS-Report-Submitter`, and the right side of report ids. */
  submitter: string;
}

/** One row of a day's counts for a policy domain (`tls_sessions`). */
export interface SessionCount {
  policyType: TlsPolicyType;
  policySha256: string;
  policyStrings: string[];
  mxHost: string;
  receivingIp: string;
  resultType: TlsResultType;
  failureReason: string;
  sessions: number;
}

/** The report of RFC 8460 §4.4, as sent (`rfc8460-report.schema.json` checks it in the tests). */
export interface TlsReport {
  "organization-name": string;
  "date-range": { "start-datetime": string; "end-datetime": string };
  "contact-info": string;
  "report-id": string;
  policies: Array<{
    policy: {
      "policy-type": TlsPolicyType;
      "policy-string"?: string[];
      "policy-domain": string;
      "mx-host"?: string[];
    };
    summary: { "total-successful-session-count": number; "total-failure-session-count": number };
    "failure-details"?: Array<{
      "result-type": Exclude<TlsResultType, "success">;
      "receiving-mx-hostname"?: string;
      "receiving-ip"?: string;
      "failed-session-count": number;
      "failure-reason-code"?: string;
    }>;
  }>;
}

// A report stays a few kilobytes whatever a day held: the largest failure groups are kept.
const MAX_FAILURE_DETAILS = 100;

/**
 * The report id of a policy domain's day: the same on every run, so a rerun finds the report it already made
 * (`tls_reports.report_id` is unique). Shaped `<left>@<submitter>`, as the subject line's Report-ID (§5.3).
 */
export const reportIdOf = (day: string, policyDomain: string, submitter: string) =>
  `${day.replaceAll("-", "")}.${policyDomain}@${submitter}`;

/** The MX patterns an MTA-STS policy names (its `mx:` lines, RFC 8461 §3.2), else the MX hosts met. */
function mxHostsOf(type: TlsPolicyType, strings: readonly string[], met: readonly string[]): string[] {
  const patterns = strings.flatMap((s) => /^mx:\s*(\S+)\s*$/i.exec(s)?.[1] ?? []);
  return type === "sts" && patterns.length > 0 ? patterns : [...new Set(met.filter(Boolean))];
}

/**
 * Builds a policy domain's report for one UTC day from its session counts (§4): one entry per policy
 * applied, with the day's successes and failures and the failures grouped by result type, MX host,
 * receiving address and reason.
 */
export function buildTlsReport(
  reporter: Reporter,
  policyDomain: string,
  day: string,
  counts: readonly SessionCount[],
): TlsReport {
  const groups = new Map<string, SessionCount[]>();
  for (const c of counts) {
    const key = `${c.policyType}/${c.policySha256}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const policies = [...groups.values()].map((rows) => {
    const first = rows[0] as SessionCount;
    const failures = rows.filter((r) => r.resultType !== "success").sort((a, b) => b.sessions - a.sessions);
    const total = (list: readonly SessionCount[]) => list.reduce((n, r) => n + r.sessions, 0);
    const mxHosts = mxHostsOf(
      first.policyType,
      first.policyStrings,
      rows.map((r) => r.mxHost),
    );
    return {
      policy: {
        "policy-type": first.policyType,
        ...(first.policyStrings.length > 0 ? { "policy-string": first.policyStrings } : {}),
        "policy-domain": policyDomain,
        ...(mxHosts.length > 0 ? { "mx-host": mxHosts } : {}),
      },
      summary: {
        "total-successful-session-count": total(rows) - total(failures),
        "total-failure-session-count": total(failures),
      },
      ...(failures.length > 0
        ? {
            "failure-details": failures.slice(0, MAX_FAILURE_DETAILS).map((f) => ({
              "result-type": f.resultType as Exclude<TlsResultType, "success">,
              ...(f.mxHost ? { "receiving-mx-hostname": f.mxHost } : {}),
              ...(f.receivingIp ? { "receiving-ip": f.receivingIp } : {}),
              "failed-session-count": f.sessions,
              ...(f.failureReason ? { "failure-reason-code": f.failureReason } : {}),
            })),
          }
        : {}),
    };
  });
  return {
    "organization-name": reporter.organizationName,
    "date-range": { "start-datetime": `${day}T00:00:00Z`, "end-datetime": `${day}T23:59:59Z` },
    "contact-info": reporter.contactInfo,
    "report-id": reportIdOf(day, policyDomain, reporter.submitter),
    policies,
  };
}

/** A policy domain's session counts of one day. */
export async function loadSessionCounts(
  db: Queryable,
  policyDomain: string,
  day: string,
): Promise<SessionCount[]> {
  const { rows } = await db.query<SessionCount>(
    `select policy_type as "policyType", encode(policy_sha256, 'hex') as "policySha256",
            policy_strings as "policyStrings", mx_host as "mxHost", receiving_ip as "receivingIp",
            result_type as "resultType", failure_reason as "failureReason", sessions::float8 as sessions
     from tls_sessions where policy_domain = $1 and day = $2::date
     order by policy_type, policy_sha256, mx_host, receiving_ip, result_type, failure_reason`,
    [policyDomain, day],
  );
  return rows;
}
