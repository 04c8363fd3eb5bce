import { recordAuditEvent } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import { type Pool, type Queryable, withTransaction } from "../db/pool.ts";
import type { ChaosRule } from "./chaos.ts";

interface Row {
  recipient: string | null;
  share: number;
  at: ChaosRule["at"];
  action: ChaosRule["action"];
  code: number | null;
  delay_seconds: number | null;
}

/** The account's chaos rules, in order (the capture reads them at each sandbox attempt). */
export async function loadChaosRules(db: Queryable, account: string): Promise<ChaosRule[]> {
  const { rows } = await db.query<Row>(
    `select recipient, share, at, action, code, delay_seconds from sandbox_chaos_rules
     where account = $1 order by position`,
    [account],
  );
  return rows.map((r) => ({
    ...(r.recipient ? { recipient: r.recipient } : {}),
    share: r.share,
    at: r.at,
    action: r.action,
    ...(r.code !== null ? { code: r.code } : {}),
    ...(r.delay_seconds !== null ? { delaySeconds: r.delay_seconds } : {}),
  }));
}

/** Replaces the account's chaos rules with `rules` (none: chaos off), in one transaction. */
export async function replaceChaosRules(
  pool: Pool,
  account: string,
  rules: readonly ChaosRule[],
  by?: AuditContext,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query("select mailroom_ensure_account($1)", [account]);
    await client.query("delete from sandbox_chaos_rules where account = $1", [account]);
    const replaced = {
      account,
      action: "sandbox.chaos_replaced",
      target: account,
      detail: { rules: rules.length },
    } as const;
    if (by) await recordAuditEvent(client, by, replaced);
    if (rules.length === 0) return;
    await client.query(
      `insert into sandbox_chaos_rules (account, position, recipient, share, at, action, code, delay_seconds)
       select $1, n, recipient, share, at, action, code, delay_seconds
       from unnest($2::text[], $3::float8[], $4::text[], $5::text[], $6::int[], $7::int[])
         with ordinality as t(recipient, share, at, action, code, delay_seconds, n)`,
      [
        account,
        rules.map((r) => r.recipient ?? null),
        rules.map((r) => r.share ?? 1),
        rules.map((r) => r.at),
        rules.map((r) => r.action),
        rules.map((r) => (r.action === "reply" ? (r.code ?? null) : null)),
        rules.map((r) => (r.action === "slow" ? (r.delaySeconds ?? null) : null)),
      ],
    );
  });
}
