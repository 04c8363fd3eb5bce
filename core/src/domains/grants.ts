/**
 * Shared domains (issue 31 item 4, ADR 0054): a domain owned by the reserved account `@cluster` (a
 * ClusterSendingDomain) and the accounts allowed to send from it. The one writer of `domain_grants`.
 */
import type { Pool, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { storedName } from "./records.ts";

/** The account that owns shared domains: not a DNS label, so no namespace and no API key can be it. */
export const CLUSTER_ACCOUNT = "@cluster";

/**
 * Makes `accounts` exactly the set allowed to send from the shared domain `domainId`, in one transaction.
 * Returns the accounts added and removed, for the operator's Events.
 */
export async function setDomainGrants(
  pool: Pool,
  domainId: string,
  accounts: readonly string[],
): Promise<{ added: string[]; removed: string[] }> {
  const wanted = [...new Set(accounts)].sort();
  return withTransaction(pool, async (client) => {
    // The domain's row first: two reconciles of one resource apply their sets one after the other.
    await client.query(`select 1 from domains where id = $1 for update`, [domainId]);
    const { rows: removed } = await client.query<{ account: string }>(
      `delete from domain_grants where domain_id = $1 and account <> all($2::text[]) returning account`,
      [domainId, wanted],
    );
    const { rows: added } = await client.query<{ account: string }>(
      `insert into domain_grants (domain_id, account) select $1, unnest($2::text[])
       on conflict do nothing returning account`,
      [domainId, wanted],
    );
    return { added: added.map((r) => r.account).sort(), removed: removed.map((r) => r.account).sort() };
  });
}

/** Whether an account may send from a From address's domain, and if not, why. */
export type SenderDomainVerdict = "allowed" | "not_allowed" | "not_verified";

/**
 * `allowed`: the domain is verified and the account's own or granted to it. `not_allowed`: a shared domain
 * of that name exists and the account is not among its grants (ADR 0054: a platform team's domain is
 * declared cluster-wide, so saying it exists tells a tenant nothing it could not `kubectl get`).
 * `not_verified`: anything else, including another account's own domain, which is never revealed.
 */
export async function judgeSenderDomain(
  db: Queryable,
  account: string,
  fromAddress: string,
): Promise<SenderDomainVerdict> {
  const at = fromAddress.lastIndexOf("@");
  const name = storedName(at === -1 ? fromAddress : fromAddress.slice(at + 1).replace(/>$/, ""));
  if (!name) return "not_verified";
  const { rows } = await db.query<{ verified: boolean; allowed: boolean }>(
    `select d.status = 'verified' as verified,
            d.account = $1 or exists (select 1 from domain_grants g where g.domain_id = d.id and g.account = $1)
              as allowed
       from domains d where d.name = $2 and d.account in ($1, $3)`,
    [account, name, CLUSTER_ACCOUNT],
  );
  if (rows.some((r) => r.verified && r.allowed)) return "allowed";
  if (rows.some((r) => !r.allowed)) return "not_allowed";
  return "not_verified";
}
