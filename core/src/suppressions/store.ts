import { withAudit } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Pool, Queryable } from "../db/pool.ts";

export interface Suppression {
  address: string;
  reason: "hard_bounce" | "complaint" | "manual";
  detail: string | null;
  sourceEmailId: string | null;
  createdAt: Date;
}

interface SuppressionRow {
  address: string;
  reason: Suppression["reason"];
  detail: string | null;
  source_email_id: string | null;
  created_at: Date;
}

const toSuppression = (r: SuppressionRow): Suppression => ({
  address: r.address,
  reason: r.reason,
  detail: r.detail,
  sourceEmailId: r.source_email_id,
  createdAt: r.created_at,
});

/** Adds addresses to an account's suppression list (a repeat keeps the first entry). */
export async function addSuppressions(
  db: Queryable,
  account: string,
  entries: readonly {
    address: string;
    reason: Suppression["reason"];
    detail?: string;
    sourceEmailId?: string;
  }[],
): Promise<void> {
  if (entries.length === 0) return;
  await db.query(
    `select from mailroom_add_suppressions($1::text[], $2::text[], $3::text[], $4::text[], $5::uuid[])`,
    [
      entries.map(() => account),
      entries.map((e) => e.address.toLowerCase()),
      entries.map((e) => e.reason),
      entries.map((e) => e.detail ?? null),
      entries.map((e) => e.sourceEmailId ?? null),
    ],
  );
}

/**
 * Adds one address by hand (reason `manual`). An address already listed keeps its entry, whose reason and
 * date say why and since when it is suppressed: `created` tells the two cases apart. With `by`, an address
 * it adds is recorded in the audit trail in the same transaction.
 */
export async function suppressManually(
  db: Pool | Queryable,
  account: string,
  address: string,
  detail: string | undefined,
  by?: AuditContext,
): Promise<{ created: boolean; suppression: Suppression }> {
  return withAudit(
    db,
    by,
    (q) => addManually(q, account, address, detail),
    ({ created, suppression }) =>
      created ? { account, action: "suppression.added", target: suppression.address } : undefined,
  );
}

async function addManually(db: Queryable, account: string, address: string, detail: string | undefined) {
  const { rows } = await db.query<SuppressionRow & { created: boolean }>(
    `with added as (
       select * from mailroom_add_suppressions(array[$1], array[$2], array['manual'], array[$3], array[null::uuid])
     )
     select *, true as created from added
     union all
     select *, false as created from suppressions
     where account = $1 and address = $2 and not exists (select 1 from added)`,
    [account, address.toLowerCase(), detail ?? null],
  );
  const row = rows[0];
  if (!row) throw new Error(`suppression of ${address} neither added nor found`);
  return { created: row.created, suppression: toSuppression(row) };
}

/** One page of the suppression list, alphabetical, with an address cursor. */
export async function listSuppressions(
  db: Queryable,
  account: string,
  page: { after?: string | undefined; limit: number },
): Promise<{ data: Suppression[]; hasMore: boolean }> {
  const { rows } = await db.query<SuppressionRow>(
    `select * from suppressions where account = $1 and ($2::text is null or address > $2)
     order by address limit $3`,
    [account, page.after ?? null, page.limit + 1],
  );
  return { data: rows.slice(0, page.limit).map(toSuppression), hasMore: rows.length > page.limit };
}

export async function getSuppression(
  db: Queryable,
  account: string,
  address: string,
): Promise<Suppression | undefined> {
  const { rows } = await db.query<SuppressionRow>(
    `select * from suppressions where account = $1 and address = $2`,
    [account, address.toLowerCase()],
  );
  return rows[0] ? toSuppression(rows[0]) : undefined;
}

/**
 * Removes an address from the list so mail to it is attempted again. True when it was listed. With `by`, the
 * lift is recorded in the audit trail in the same transaction, with the reason the address had been listed.
 */
export async function deleteSuppression(
  db: Pool | Queryable,
  account: string,
  address: string,
  by?: AuditContext,
): Promise<boolean> {
  const lifted = await withAudit(
    db,
    by,
    async (q) => {
      const { rows } = await q.query<{ reason: string }>(
        `delete from suppressions where account = $1 and address = $2 returning reason`,
        [account, address.toLowerCase()],
      );
      return rows[0];
    },
    (row) =>
      row && {
        account,
        action: "suppression.lifted",
        target: address.toLowerCase(),
        detail: { reason: row.reason },
      },
  );
  return lifted !== undefined;
}
