import { createTlsRecorder, type TlsOutcome } from "@mailroom/core/tls-reports";
import type { Logger } from "graphile-worker";
import type { WorkerDeps } from "../deps.ts";

/**
 * Counts an attempt's TLS sessions (`mailroom_delivery_tls_total`) and adds them to the day's TLS report
 * counts, after the attempt itself is recorded. Never throws: the attempt's outcome is durable already, and a
 * failure here costs only these sessions in the day's report (logged, `mailroom_tls_sessions_unrecorded_total`),
 * never the delivery or its retry.
 */
export function makeTlsRecording(deps: Pick<WorkerDeps, "pool" | "metrics">) {
  const record = createTlsRecorder(deps.pool);
  return async (outcomes: readonly { tls?: TlsOutcome | undefined }[], logger: Logger): Promise<void> => {
    const sessions = new Map<string, TlsOutcome>();
    for (const { tls } of outcomes) if (tls) sessions.set(JSON.stringify(tls), tls);
    if (sessions.size === 0) return;
    for (const tls of sessions.values())
      deps.metrics.deliveryTls.inc({ mechanism: tls.mechanism, result: tls.result });
    try {
      await record([...sessions.values()]);
    } catch (error) {
      deps.metrics.tlsRecordFailures.inc(sessions.size);
      logger.warn(`TLS outcomes of a delivery attempt not counted: ${(error as Error).message}`);
    }
  };
}
