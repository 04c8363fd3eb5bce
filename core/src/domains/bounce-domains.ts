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
