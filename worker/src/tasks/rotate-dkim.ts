import { makeTxtLookup, rotateDueDomains, rotationPolicyFor } from "@mailroom/core/domains";
import type { Task } from "graphile-worker";
import "./types.ts";
import type { WorkerDeps } from "../deps.ts";

/**
 * Every minute (CRON_SCHEDULES in core/src/jobs): moves each domain whose rotation check is due one phase
 * on, as core's decider says (core/src/domains/rotation). The new key is looked up through the resolver that
 * verification uses; old selectors stay published for the retry horizon plus a week. Each step writes its
 * own webhook event; the operator publishes the records and reports the steps as Kubernetes Events.
 */
export function makeRotateDkimTask(deps: WorkerDeps): Task<"rotate_dkim"> {
  const rotation = {
    db: deps.pool,
    kek: deps.kek,
    lookup: makeTxtLookup({ servers: [...deps.config.dns.servers], timeoutMs: 5_000 }),
    policy: rotationPolicyFor(deps.config.delivery.retry.horizonSeconds),
  };
  return async (_payload, helpers) => {
    const outcomes = await rotateDueDomains(rotation, { limit: 50 });
    for (const outcome of outcomes) {
      for (const step of outcome.applied) {
        deps.metrics.dkimRotationSteps.inc({ step: step.kind });
        const selectors = step.selectors.map((s) => s.selector).join(", ");
        helpers.logger.info(
          `DKIM rotation of ${outcome.name} (${outcome.account}): ${step.kind} ${selectors}`,
        );
      }
    }
  };
}
