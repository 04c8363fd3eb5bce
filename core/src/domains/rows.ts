import type { ReputationLevel } from "../reputation/thresholds.ts";
import { splitTxtValue } from "./dkim.ts";
import type {
  CheckName,
  CheckStatus,
  DkimAlgorithm,
  DkimKeyInfo,
  DomainRecord,
  RecordPurpose,
  RecordType,
  VerificationStatus,
} from "./types.ts";

/** Selects a domain with its keys (public halves only) and records, as one row. */
export const DOMAIN_SELECT = `
  select d.id, d.account, d.name, d.status, d.status_reason, d.return_path_domain, d.created_at,
    d.last_checked_at, d.verified_at, d.next_check_at, d.dkim_rotation_interval_days,
    d.dkim_rotation_requested_at,
    coalesce((select json_agg(json_build_object('id', k.id, 'selector', k.selector, 'algorithm', k.algorithm,
        'public_key', k.public_key, 'created_at', k.created_at, 'state', k.state, 'served_at', k.served_at,
        'activated_at', k.activated_at, 'withdraw_at', k.withdraw_at) order by k.created_at, k.selector)
      from dkim_keys k where k.domain_id = d.id), '[]') as dkim_keys,
    coalesce((select json_agg(json_build_object('name', c.name, 'status', c.status, 'reason', c.reason,
        'checked_at', c.checked_at, 'since', c.since)
        order by array_position(array['SPF', 'DKIM', 'DMARC', 'BounceMX', 'ReverseDNS', 'TLS'], c.name))
      from domain_checks c where c.domain_id = d.id), '[]') as checks,
    coalesce((select json_agg(json_build_object('window_hours', q.window_hours, 'sent', q.sent,
        'bounced', q.bounced, 'complained', q.complained, 'level', q.level) order by q.window_hours)
      from reputation_rates q where q.account = d.account and q.domain = d.name), '[]') as reputation,
    coalesce((select json_agg(json_build_object('purpose', r.purpose, 'type', r.type, 'name', r.name,
        'value', r.value, 'required', r.required, 'status', r.status, 'reason', r.reason,
        'last_checked_at', r.last_checked_at)
        order by array_position(array['dkim', 'spf', 'mx', 'dmarc'], r.purpose), r.name)
      from domain_dns_records r where r.domain_id = d.id), '[]') as records
  from domains d`;

export interface DomainRow {
  id: string;
  account: string;
  name: string;
  status: VerificationStatus;
  status_reason: string | null;
  return_path_domain: string;
  created_at: Date;
  last_checked_at: Date | null;
  verified_at: Date | null;
  next_check_at: Date;
  dkim_rotation_interval_days: number;
  dkim_rotation_requested_at: Date | null;
  dkim_keys: {
    id: string;
    selector: string;
    algorithm: DkimAlgorithm;
    public_key: string;
    created_at: string;
    state: DkimKeyInfo["state"];
    served_at: string | null;
    activated_at: string | null;
    withdraw_at: string | null;
  }[];
  checks: { name: CheckName; status: CheckStatus; reason: string; checked_at: string; since: string }[];
  reputation: {
    window_hours: number;
    sent: number;
    bounced: number;
    complained: number;
    level: ReputationLevel;
  }[];
  records: {
    purpose: RecordPurpose;
    type: RecordType;
    name: string;
    value: string;
    required: boolean;
    status: VerificationStatus;
    reason: string | null;
    last_checked_at: string | null;
  }[];
}

const DAY_MS = 86_400_000;
const dateOrNull = (value: string | null) => (value ? new Date(value) : null);

/** Scheduled rotation comes due `intervalDays` after the newest active key started signing. */
function nextRotationAt(row: DomainRow, keys: readonly DkimKeyInfo[]): Date | null {
  if (row.dkim_rotation_interval_days === 0 || keys.some((k) => k.state === "pending")) return null;
  const active = keys
    .filter((k) => k.state === "active")
    .map((k) => (k.activatedAt ?? k.createdAt).getTime());
  if (active.length === 0) return null;
  return new Date(Math.max(...active) + row.dkim_rotation_interval_days * DAY_MS);
}

export function toDomainRecord(row: DomainRow): DomainRecord {
  const dkimKeys: DkimKeyInfo[] = row.dkim_keys.map((k) => ({
    id: k.id,
    selector: k.selector,
    algorithm: k.algorithm,
    publicKey: k.public_key,
    createdAt: new Date(k.created_at),
    state: k.state,
    servedAt: dateOrNull(k.served_at),
    activatedAt: dateOrNull(k.activated_at),
    withdrawAt: dateOrNull(k.withdraw_at),
  }));
  return {
    id: row.id,
    account: row.account,
    name: row.name,
    status: row.status,
    statusReason: row.status_reason,
    returnPathDomain: row.return_path_domain,
    createdAt: row.created_at,
    lastCheckedAt: row.last_checked_at,
    verifiedAt: row.verified_at,
    nextCheckAt: row.next_check_at,
    dkimKeys,
    checks: row.checks.map((c) => ({
      name: c.name,
      status: c.status,
      reason: c.reason,
      checkedAt: new Date(c.checked_at),
      since: new Date(c.since),
    })),
    reputation: row.reputation.map((r) => ({
      windowHours: r.window_hours,
      sent: r.sent,
      bounced: r.bounced,
      complained: r.complained,
      bounceRate: r.sent > 0 ? r.bounced / r.sent : null,
      complaintRate: r.sent > 0 ? r.complained / r.sent : null,
      level: r.level,
    })),
    dkimRotation: {
      intervalDays: row.dkim_rotation_interval_days,
      nextRotationAt: nextRotationAt(row, dkimKeys),
      requestedAt: row.dkim_rotation_requested_at,
    },
    records: row.records.map((r) => ({
      purpose: r.purpose,
      type: r.type,
      name: r.name,
      value: r.value,
      strings: r.type === "TXT" ? splitTxtValue(r.value) : [r.value],
      required: r.required,
      status: r.status,
      reason: r.reason,
      lastCheckedAt: r.last_checked_at ? new Date(r.last_checked_at) : null,
    })),
  };
}
