import type { Pool } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { buildDnsRecords, type RecordOptions } from "./records.ts";
import type { DomainRecord } from "./types.ts";

/**
 * Brings a domain's advisory records (SPF, MX, DMARC) in line with the current settings before a check, so
 * a domain created before the bounce domain got its MX, or before the SPF mechanisms changed, is told what
 * to publish now. DKIM records are never touched: they are the keys. Returns whether anything changed.
 */
export async function syncAdvisoryRecords(
  pool: Pool,
  domain: DomainRecord,
  options: RecordOptions,
): Promise<boolean> {
  const wanted = buildDnsRecords(domain.name, domain.returnPathDomain, [], options);
  // DKIM records are the keys' (pending and retiring ones are not required either): never touched here.
  const current = domain.records.filter((r) => r.purpose !== "dkim");
  const same =
    wanted.length === current.length &&
    wanted.every((w) =>
      current.some((c) => c.purpose === w.purpose && c.name === w.name && c.value === w.value),
    );
  if (same) return false;
  await withTransaction(pool, async (client) => {
    await client.query(`delete from domain_dns_records where domain_id = $1 and purpose <> 'dkim'`, [
      domain.id,
    ]);
    for (const record of wanted) {
      // A record whose value did not change keeps its last verdict.
      const kept = current.find((c) => c.purpose === record.purpose && c.value === record.value);
      await client.query(
        `insert into domain_dns_records (domain_id, purpose, type, name, value, required, status, reason,
                                         last_checked_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          domain.id,
          record.purpose,
          record.type,
          record.name,
          record.value,
          record.required,
          kept?.status ?? "pending",
          kept?.reason ?? null,
          kept?.lastCheckedAt ?? null,
        ],
      );
    }
  });
  return true;
}
