import type { Queryable } from "../db/pool.ts";
import { CHECK_NAMES, type CheckName, VERIFICATION_STATUSES, type VerificationStatus } from "./types.ts";

/** Domains by verification status, for the gauges (a small table: one grouped scan). */
export async function countDomainsByStatus(db: Queryable): Promise<Record<VerificationStatus, number>> {
  const { rows } = await db.query<{ status: VerificationStatus; n: string }>(
    "select status, count(*) as n from domains group by status",
  );
  const counts = Object.fromEntries(VERIFICATION_STATUSES.map((s) => [s, 0])) as Record<
    VerificationStatus,
    number
  >;
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}

/** Domains failing each compliance check (a partial index on failing rows keeps this small). */
export async function countFailingChecks(db: Queryable): Promise<Record<CheckName, number>> {
  const { rows } = await db.query<{ name: CheckName; n: string }>(
    "select name, count(*) as n from domain_checks where status = 'fail' group by name",
  );
  const counts = Object.fromEntries(CHECK_NAMES.map((c) => [c, 0])) as Record<CheckName, number>;
  for (const row of rows) counts[row.name] = Number(row.n);
  return counts;
}
