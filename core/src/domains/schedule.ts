import type { Queryable } from "../db/pool.ts";
import { DOMAIN_SELECT, type DomainRow, toDomainRecord } from "./rows.ts";
import type { DomainRecord, VerificationStatus } from "./types.ts";

const MINUTE_MS = 60_000;
// Long enough for one pass of DNS lookups; a claimer that dies gets its domains back after it.
const DEFAULT_LEASE_MS = 5 * MINUTE_MS;
export const RECHECK_VERIFIED_MS = 60 * MINUTE_MS;
export const RECHECK_UNVERIFIED_MS = 10 * MINUTE_MS;
export const RECHECK_TEMPORARY_FAILURE_MS = 5 * MINUTE_MS;
// Past this age a domain that never verified is only looked at hourly: its owner has likely moved on.
const YOUNG_DOMAIN_MS = 24 * 60 * MINUTE_MS;

/** When the background recheck should next look at a domain, given the status it just got. */
export function nextCheckAt(status: VerificationStatus, createdAt: Date, now: Date): Date {
  const delay =
    status === "verified"
      ? RECHECK_VERIFIED_MS
      : status === "temporary_failure"
        ? RECHECK_TEMPORARY_FAILURE_MS
        : now.getTime() - createdAt.getTime() < YOUNG_DOMAIN_MS
          ? RECHECK_UNVERIFIED_MS
          : RECHECK_VERIFIED_MS;
  return new Date(now.getTime() + delay);
}

/**
 * Takes up to `limit` domains whose recheck is due and pushes their next check `leaseMs` ahead, so that
 * concurrent workers never check the same domain twice; `recordVerification` then sets the real next time.
 */
export async function claimDomainsDueForRecheck(
  db: Queryable,
  options: { now?: Date; limit: number; leaseMs?: number },
): Promise<DomainRecord[]> {
  const now = options.now ?? new Date();
  const { rows } = await db.query<{ id: string }>(
    `update domains set next_check_at = $2
     where id in (select id from domains where next_check_at <= $1 order by next_check_at
                  limit $3 for update skip locked)
     returning id`,
    [now, new Date(now.getTime() + (options.leaseMs ?? DEFAULT_LEASE_MS)), options.limit],
  );
  if (rows.length === 0) return [];
  const { rows: domains } = await db.query<DomainRow>(
    `${DOMAIN_SELECT} where d.id = any($1) order by d.next_check_at`,
    [rows.map((r) => r.id)],
  );
  return domains.map(toDomainRecord);
}
