import type { Queryable } from "../db/pool.ts";

/**
 * The account of each endpoint, cached: an endpoint never changes account, and a job must know whose it is
 * before taking a slot's share. Undefined when the endpoint is gone (its deliveries went with it).
 */
export function createEndpointAccounts(db: Queryable, maxEntries = 10_000) {
  const cache = new Map<string, string>();
  return async (endpointId: string): Promise<string | undefined> => {
    const hit = cache.get(endpointId);
    if (hit !== undefined) return hit;
    const { rows } = await db.query<{ account: string }>(
      "select account from webhook_endpoints where id = $1",
      [endpointId],
    );
    const account = rows[0]?.account;
    if (account === undefined) return undefined;
    if (cache.size >= maxEntries) cache.clear();
    cache.set(endpointId, account);
    return account;
  };
}
