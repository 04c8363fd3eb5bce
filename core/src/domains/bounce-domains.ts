import type { Queryable } from "../db/pool.ts";

/**
 * The account whose verified domain uses `returnPathDomain` as its bounce domain, or undefined. At most one
 * account holds a name verified (domains_one_verified_owner), so the answer is unique. The SMTP receiver
 * accepts mail only for these domains, and a report found by Message-ID alone must come through one of the
 * email's own account.
 */
export async function findBounceDomainOwner(
  db: Queryable,
  returnPathDomain: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ account: string }>(
    `select account from domains where return_path_domain = $1 and status = 'verified' limit 1`,
    [returnPathDomain.toLowerCase().replace(/\.$/, "")],
  );
  return rows[0]?.account;
}

/**
 * Whether `returnPathDomain` is the bounce domain of a verified domain `account` sends from: its own, or a
 * shared one granted to it (grants.ts). A report matched by Message-ID alone counts only through one of these.
 */
export async function bounceDomainServes(
  db: Queryable,
  returnPathDomain: string,
  account: string,
): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from domains d where d.return_path_domain = $1 and d.status = 'verified'
       and (d.account = $2
            or exists (select 1 from domain_grants g where g.domain_id = d.id and g.account = $2))`,
    [returnPathDomain.toLowerCase().replace(/\.$/, ""), account],
  );
  return rows.length > 0;
}
