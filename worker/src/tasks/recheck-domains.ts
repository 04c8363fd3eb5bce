import { makeTxtLookup, recheckDueDomains, sendingPathFrom } from "@mailroom/core/domains";
import type { Task } from "graphile-worker";
import "./types.ts";
import type { WorkerDeps } from "../deps.ts";

/**
 * Every minute (`PERIODIC_JOBS` in core/src/jobs): rechecks the domains that are due — pending ones every ten
 * minutes, verified ones hourly — so a record that disappears is noticed and the domain stops being verified.
 * The transitions emit `domain.verified` / `domain.failed` in the same transaction. Each check also
 * re-evaluates the domain's compliance checks (SPF, DKIM, DMARC, BounceMX, ReverseDNS, TLS; a regression emits
 * `domain.check_failed`).
 */
export function makeRecheckDomainsTask(deps: WorkerDeps): Task<"recheck_domains"> {
  const lookup = makeTxtLookup({ servers: [...deps.config.dns.servers], timeoutMs: 5_000 });
  return async (_payload, helpers) => {
    const outcomes = await recheckDueDomains(
      {
        db: deps.pool,
        lookup,
        records: deps.config.dnsRecords,
        sendingPath: sendingPathFrom(deps.config),
        // A domain the background check verifies is recorded in the audit trail as Mailroom's doing.
        by: { actor: { kind: "system", id: "domain-recheck" } },
      },
      { limit: 50 },
    );
    for (const o of outcomes) {
      if (o.previousStatus === "verified" && o.transition === "failed")
        deps.metrics.domainVerificationLost.inc();
      if (o.transition)
        helpers.logger.info(`domain ${o.domain.name} (${o.domain.account}) is now ${o.transition}`);
    }
  };
}
