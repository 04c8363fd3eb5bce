import { type Pool, withTransaction } from "../db/pool.ts";

/**
 * Makes a whole account a sandbox, or live again (issue 30, ADR 0047): the one writer of
 * `accounts.sandbox`. The account's row is made if it has none yet (`mailroom_ensure_account`). Only mail
 * accepted afterwards follows: each email keeps the decision made at its accept (`emails.sandbox`).
 */
export async function setAccountSandbox(pool: Pool, account: string, sandbox: boolean): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query("select mailroom_ensure_account($1)", [account]);
    await client.query("update accounts set sandbox = $2 where account = $1", [account, sandbox]);
  });
}
