/**
 * How one delivery session met the receiving domain's TLS policy, in TLS-RPT's vocabulary (RFC 8460 §4.3):
 * the direct and relay transports report one per recipient domain and MX host they tried; the worker records
 * them for the email's timeline, `mailroom_delivery_tls_total` and the daily TLS report.
 */
export type TlsPolicyType = "sts" | "tlsa" | "no-policy-found";

/** RFC 8460 §4.3 result types; `success` when the session met the policy. */
export type TlsResultType =
  | "success"
  | "starttls-not-supported"
  | "certificate-host-mismatch"
  | "certificate-expired"
  | "certificate-not-trusted"
  | "validation-failure"
  | "tlsa-invalid"
  | "dnssec-invalid"
  | "dane-required"
  | "sts-policy-fetch-error"
  | "sts-policy-invalid"
  | "sts-webpki-invalid";

/**
 * Why receivers' TLS policies (MTA-STS, DANE) are not applied to an email's sessions: it is a TLS report
 * (RFC 8460 §5.3: delivered despite TLS failures; set only by core/src/tls-reports), or its message says
 * `TLS-Required: No` (RFC 8689 §5). Its sessions are still judged and reported, never refused.
 */
export type TlsPolicyExemption = "tls-report" | "tls-required-no";

/** Which rule decided how the session's TLS was checked. */
export type TlsMechanism = "mta-sts" | "dane" | "opportunistic" | "relay";

export interface TlsOutcome {
  mechanism: TlsMechanism;
  /** The recipient domain whose policy applied (the relay's host name for `relay`). */
  policyDomain: string;
  policyType: TlsPolicyType;
  /** The policy as RFC 8460 §4.4 reports it: the MTA-STS policy's lines, or the TLSA records in text. */
  policyStrings?: string[];
  /** `testing` MTA-STS policies deliver despite a failure: reported, not enforced. */
  enforced: boolean;
  mxHost?: string;
  receivingIp?: string;
  result: TlsResultType;
  /** Whether the session ran over TLS, and whether the peer's certificate (or TLSA match) was verified. */
  tls: boolean;
  verified: boolean;
  /** A human-readable reason, for the timeline and the report's `failure-reason-code`. */
  detail?: string;
  /** Set when the email was exempt from the policy: the outcome is reported, the session was not refused. */
  exempt?: TlsPolicyExemption;
}
