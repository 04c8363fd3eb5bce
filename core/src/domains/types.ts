import type { ReputationLevel } from "../reputation/thresholds.ts";
export const VERIFICATION_STATUSES = ["pending", "verified", "failed", "temporary_failure"] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const DKIM_ALGORITHMS = ["rsa", "ed25519"] as const;
export type DkimAlgorithm = (typeof DKIM_ALGORITHMS)[number];

export type RecordPurpose = "dkim" | "spf" | "dmarc" | "mx";
export type RecordType = "TXT" | "MX";

/** A DNS record the domain owner publishes, as Mailroom expects it. */
export interface DnsRecordSpec {
  purpose: RecordPurpose;
  type: RecordType;
  /** Fully qualified, no trailing dot. */
  name: string;
  /** The whole TXT value, as verifiers read it once its strings are joined; for MX, `<priority> <host>`. */
  value: string;
  /** Whether the record decides the domain's status (DKIM), or is advice that is checked and reported. */
  required: boolean;
}

/** The outcome of checking one record in DNS. `reason` says what was expected and what was found. */
export interface RecordCheck {
  purpose: RecordPurpose;
  name: string;
  required: boolean;
  status: Exclude<VerificationStatus, "pending">;
  reason: string | null;
}

/** A record with its latest check, as stored. */
export interface DnsRecordState extends DnsRecordSpec {
  /** The value split into the ≤255-byte character-strings a TXT record is made of (MX: the value). */
  strings: string[];
  status: VerificationStatus;
  reason: string | null;
  lastCheckedAt: Date | null;
}

/** Public facts about a DKIM key: the private half is only reachable through `loadSigningKeys`. */
export interface DkimKeyInfo {
  id: string;
  selector: string;
  algorithm: DkimAlgorithm;
  /** The base64 p= value published in DNS. */
  publicKey: string;
  createdAt: Date;
  /** pending: published, waiting until DNS serves it; active: signing; retiring: published until withdrawAt. */
  state: "pending" | "active" | "retiring";
  /** A pending key: since when DNS serves it. */
  servedAt: Date | null;
  activatedAt: Date | null;
  withdrawAt: Date | null;
}

/** The compliance checks of a domain, each reported under its name (issue 29 item 2). */
export const CHECK_NAMES = ["SPF", "DKIM", "DMARC", "BounceMX", "ReverseDNS", "TLS"] as const;
export type CheckName = (typeof CHECK_NAMES)[number];
/** `unknown`: not decidable now (a DNS outage, not configured, not applicable in this delivery mode). */
export type CheckStatus = "pass" | "fail" | "unknown";

/** A compliance check as stored: its verdict and reason, when it was made, and since when it holds. */
export interface DomainCheck {
  name: CheckName;
  status: CheckStatus;
  reason: string;
  checkedAt: Date;
  since: Date;
}

/** The domain's DKIM rotation settings and where it stands (rotation/). */
export interface DkimRotationInfo {
  /** Scheduled rotation interval in days; 0: off. */
  intervalDays: number;
  /** When the active keys come due for scheduled rotation (null: off, or a rotation is under way). */
  nextRotationAt: Date | null;
  /** A rotate-now request not yet started. */
  requestedAt: Date | null;
}

export interface DomainRecord {
  id: string;
  account: string;
  name: string;
  status: VerificationStatus;
  /** Why the domain is not verified when no single record explains it (another account holds the name). */
  statusReason: string | null;
  returnPathDomain: string;
  createdAt: Date;
  lastCheckedAt: Date | null;
  verifiedAt: Date | null;
  nextCheckAt: Date;
  dkimKeys: DkimKeyInfo[];
  dkimRotation: DkimRotationInfo;
  /** The latest compliance checks, in CHECK_NAMES order; empty until the first verification. */
  checks: DomainCheck[];
  /** The reputation guard's latest 24 h and 168 h rates of mail sent from this domain (issue 29 item 4). */
  reputation: {
    windowHours: number;
    sent: number;
    bounced: number;
    complained: number;
    bounceRate: number | null;
    complaintRate: number | null;
    level: ReputationLevel;
  }[];
  records: DnsRecordState[];
}
