import { simulatorMailboxOf } from "@mailroom/core/simulator";
import { createTlsRecorder, type TlsOutcome } from "@mailroom/core/tls-reports";
import type { Logger } from "graphile-worker";
import type { WorkerDeps } from "../deps.ts";
import { isRateLimitReply } from "../transports/shaping/signals.ts";
import type { RecipientResult } from "../transports/types.ts";

/**
 * Counts an attempt's TLS sessions (`mailroom_delivery_tls_total`) and adds them to the day's TLS report
 * counts, with the account's transit counts (recipients delivered, bounced, deferred by reason, and sessions,
 * per recipient domain: ADR 0066), after the attempt itself is recorded; a TLS report's own sessions are left
 * out of the report counts (RFC 8460 §5.3, in `sessionRowsOf`). Never throws: the attempt's outcome
 * is durable already, and a failure here costs only these counts (logged,
 * `mailroom_tls_sessions_unrecorded_total`), never the delivery or its retry.
 */
export function makeTlsRecording(deps: Pick<WorkerDeps, "pool" | "metrics" | "config">) {
  const record = createTlsRecorder(deps.pool);
  const simulatorDomain = deps.config.simulator.domain;
  return async (
    attempt: { account: string; sandbox: boolean },
    outcomes: readonly RecipientResult[],
    logger: Logger,
  ): Promise<void> => {
    // Captured sandbox mail and the simulator's recipients met no receiver: the transit view leaves them out,
    // as the overview does (ADR 0060).
    const results = attempt.sandbox
      ? []
      : outcomes.filter((r) => simulatorMailboxOf(r.recipient, simulatorDomain) === undefined);
    const sessions = new Map<string, TlsOutcome>();
    for (const { tls } of results) if (tls) sessions.set(JSON.stringify(tls), tls);
    for (const tls of sessions.values())
      deps.metrics.deliveryTls.inc({ mechanism: tls.mechanism, result: tls.result });
    if (results.length === 0) return;
    try {
      await record(
        attempt.account,
        results.map((r) => ({ ...r, rateLimited: isRateLimitReply(r.code, r.response) })),
      );
    } catch (error) {
      deps.metrics.tlsRecordFailures.inc(Math.max(1, sessions.size));
      logger.warn(`TLS outcomes of a delivery attempt not counted: ${(error as Error).message}`);
    }
  };
}
