import type { AuditContext } from "../audit/types.ts";
import type { Pool } from "../db/pool.ts";
import type { SendingPath } from "./checks/probes.ts";
import { runChecks } from "./checks/run.ts";
import type { RecordOptions } from "./records.ts";
import { syncAdvisoryRecords } from "./records-sync.ts";
import { claimDomainsDueForRecheck } from "./schedule.ts";
import { getDomainById, recordVerification, type VerificationOutcome } from "./store.ts";
import type { DomainRecord, RecordCheck } from "./types.ts";
import { checkRecords, type LookupTxt } from "./verify.ts";

export interface RecheckDeps {
  db: Pool;
  lookup: LookupTxt;
  /** The current settings of the advisory records (SPF, MX); when given, a check first applies them. */
  records?: RecordOptions | undefined;
  /** When given, the compliance checks (checks/) are evaluated and stored after each verification. */
  sendingPath?: SendingPath | undefined;
  /** Who asked for the check: a domain it verifies is recorded in the audit trail as theirs. */
  by?: AuditContext | undefined;
}

/**
 * Looks up every record of the domain and stores the outcome. The caller emits `domain.verified` or
 * `domain.failed` when `transition` says so. Undefined when the domain was deleted during the check.
 */
export async function verifyDomain(
  deps: RecheckDeps,
  domain: DomainRecord,
  now: () => Date = () => new Date(),
): Promise<VerificationOutcome | undefined> {
  let current: DomainRecord | undefined = domain;
  if (deps.records && (await syncAdvisoryRecords(deps.db, domain, deps.records))) {
    current = await getDomainById(deps.db, domain.id);
    if (!current) return undefined;
  }
  const checks: RecordCheck[] = await checkRecords(deps.lookup, current.records);
  const outcome = await recordVerification(deps.db, domain.id, checks, now(), deps.by);
  if (!outcome || !deps.sendingPath) return outcome;
  await runChecks({ db: deps.db, lookup: deps.lookup, sendingPath: deps.sendingPath }, outcome.domain, now());
  const checked = await getDomainById(deps.db, domain.id);
  return checked ? { ...outcome, domain: checked } : undefined;
}

/**
 * One pass of the background recheck: claims up to `limit` due domains (pending ones come due every ten
 * minutes, verified ones hourly; see `nextCheckAt`) and verifies each. A record that disappeared turns a
 * verified domain `failed` here. Returns the outcomes, so the job can emit events for transitions.
 */
export async function recheckDueDomains(
  deps: RecheckDeps,
  options: { limit: number; now?: () => Date },
): Promise<VerificationOutcome[]> {
  const now = options.now ?? (() => new Date());
  const due = await claimDomainsDueForRecheck(deps.db, { now: now(), limit: options.limit });
  const outcomes: VerificationOutcome[] = [];
  for (const domain of due) {
    const outcome = await verifyDomain(deps, domain, now);
    if (outcome) outcomes.push(outcome);
  }
  return outcomes;
}
