import type { Queryable } from "../db/pool.ts";
import { VERIFICATION_STATUSES, type VerificationStatus } from "./types.ts";

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
