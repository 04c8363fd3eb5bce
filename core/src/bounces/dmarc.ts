import type { Pool } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { findBounceDomainOwner } from "../domains/bounce-domains.ts";
import { type DmarcOutcome, type readDmarcReport, recordDmarcReport } from "../domains/dmarc/index.ts";
import { finishReport, lockReport } from "./reports.ts";

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();

/**
 * Finishes a stored inbound message that is a DMARC aggregate report: it counts for the accounts owning the
 * bounce domains it was addressed to (normally one), each seeing only its own domains' records
 * (core/src/domains/dmarc). `processed` when something was stored, `ignored` with the reason otherwise.
 */
export async function processDmarcReport(
  pool: Pool,
  reportId: string,
  read: NonNullable<Awaited<ReturnType<typeof readDmarcReport>>>,
) {
  return withTransaction(pool, async (client) => {
    const report = await lockReport(client, reportId);
    if (!report) return undefined;
    const owners = new Set<string>();
    for (const domain of new Set(report.rcptTo.map(domainOf))) {
      const owner = await findBounceDomainOwner(client, domain);
      if (owner) owners.add(owner);
    }
    const results: (DmarcOutcome & { account: string })[] = [];
    for (const account of owners) {
      const outcome = await recordDmarcReport(client, { account, inboundReportId: reportId, raw: read });
      if (outcome) results.push({ ...outcome, account });
    }
    const stored = results.some((r) => r.stored);
    const outcome: Record<string, unknown> =
      results.length === 1
        ? { ...results[0] }
        : { kind: "dmarc_aggregate", stored, reason: results.length ? "several" : "no_owner", results };
    const status = stored ? "processed" : "ignored";
    await finishReport(client, reportId, status, outcome);
    return { status, outcome };
  });
}
