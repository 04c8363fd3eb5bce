import type { Pool } from "../../db/pool.ts";
import { withTransaction } from "../../db/pool.ts";
import { emitEvents } from "../../webhooks/outbox.ts";
import type { CheckName } from "../types.ts";
import type { ComplianceCheck } from "./evaluate.ts";

/**
 * Stores a domain's checks and, in the same transaction, a `domain.check_failed` webhook event for each
 * check that regressed (was `pass`, is now `fail`). Returns the names that regressed.
 */
export async function recordChecks(
  pool: Pool,
  domain: { id: string; account: string; name: string },
  checks: readonly ComplianceCheck[],
  now: Date,
): Promise<CheckName[]> {
  return withTransaction(pool, async (client) => {
    const { rows: previous } = await client.query<{ name: CheckName; status: string }>(
      `select name, status from domain_checks where domain_id = $1 for update`,
      [domain.id],
    );
    await client.query(
      `insert into domain_checks (domain_id, name, status, reason, checked_at, since)
       select $1, c.name, c.status, c.reason, $5, $5
       from unnest($2::text[], $3::text[], $4::text[]) as c(name, status, reason)
       on conflict (domain_id, name) do update set status = excluded.status, reason = excluded.reason,
         checked_at = excluded.checked_at,
         since = case when domain_checks.status = excluded.status then domain_checks.since else excluded.since end`,
      [domain.id, checks.map((c) => c.name), checks.map((c) => c.status), checks.map((c) => c.reason), now],
    );
    const regressed = checks
      .filter((c) => c.status === "fail" && previous.some((p) => p.name === c.name && p.status === "pass"))
      .map((c) => c.name);
    await emitEvents(
      client,
      regressed.map((name) => ({
        account: domain.account,
        type: "domain.check_failed",
        data: {
          domainId: domain.id,
          domain: domain.name,
          check: name,
          reason: checks.find((c) => c.name === name)?.reason ?? null,
        },
      })),
    );
    return regressed;
  });
}
