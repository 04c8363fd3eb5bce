import type { Pool } from "../../db/pool.ts";
import type { CheckName, DomainRecord } from "../types.ts";
import type { LookupTxt } from "../verify.ts";
import { evaluateChecks } from "./evaluate.ts";
import { probeReverseDns, probeTls, type SendingPath } from "./probes.ts";
import { recordChecks } from "./store.ts";

/**
 * Evaluates and stores a domain's compliance checks right after its records were checked (the recheck job
 * and the verify route both call it through `verifyDomain`). Returns the checks that regressed.
 */
export async function runChecks(
  deps: { db: Pool; lookup: LookupTxt; sendingPath: SendingPath },
  domain: DomainRecord,
  now: Date,
): Promise<CheckName[]> {
  const [dmarc, reverseDns, tls] = await Promise.all([
    deps.lookup(`_dmarc.${domain.name}`),
    probeReverseDns(deps.sendingPath),
    probeTls(deps.sendingPath),
  ]);
  const checks = evaluateChecks({ domain, dmarc, reverseDns, tls });
  return recordChecks(deps.db, domain, checks, now);
}
