import { createTlsRecorder, type TlsOutcome } from "@mailroom/core/tls-reports";
import type { Logger } from "graphile-worker";
import type { WorkerDeps } from "../deps.ts";

/**
 * Counts an attempt's TLS sessions (`mailroom_delivery_tls_total`) and adds them to the day's TLS report
 * counts, after the attempt itself is recorded; a TLS report's own sessions are left out of the report counts
 * (RFC 8460 §5.3: they SHOULD NOT be in the next report). Never throws: the attempt's outcome is durable
 * already, and a failure here costs only these sessions in the day's report (logged,
 * `mailroom_tls_sessions_unrecorded_total`), never the delivery or its retry.
 */
export function makeTlsRecording(deps: Pick<WorkerDeps, "pool" | "metrics">) {
  const record = createTlsRecorder(deps.pool);
  return async (outcomes: readonly { tls?: TlsOutcome | undefined }[], logger: Logger): Promise<void> => {
    const sessions = new Map<string, TlsOutcome>();
    for (const { tls } of outcomes) if (tls) sessions.set(JSON.stringify(tls), tls);
    if (sessions.size === 0) return;
    for (const tls of sessions.values())
      deps.metrics.deliveryTls.inc({ mechanism: tls.mechanism, result: tls.result });
    const reported = [...sessions.values()].filter((tls) => tls.exempt !== "tls-report");
    if (reported.length === 0) return;
    try {
      await record(reported);
    } catch (error) {
      deps.metrics.tlsRecordFailures.inc(reported.length);
      logger.warn(`TLS outcomes of a delivery attempt not counted: ${(error as Error).message}`);
    }
  };
}
