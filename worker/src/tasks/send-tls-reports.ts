import { makeTxtLookup } from "@mailroom/core/domains";
import { purgeTlsReportData, sendTlsReports } from "@mailroom/core/tls-reports";
import { createSsrfGuard } from "@mailroom/core/webhooks";
import type { Task } from "graphile-worker";
import "./types.ts";
import type { WorkerDeps } from "../deps.ts";

/**
 * Hourly (`PERIODIC_JOBS` in core/src/jobs): the daily TLS reports (RFC 8460, ADR 0058) of the days just ended,
 * retries of sends that failed, and the purge of old counts. No report unless MAILROOM_TLSRPT_FROM is set.
 */
export function makeSendTlsReportsTask(deps: WorkerDeps): Task<"send_tls_reports"> {
  const sender = deps.config.tlsReports;
  const lookupTxt = makeTxtLookup({ servers: [...deps.config.dns.servers], timeoutMs: 5_000 });
  // https report URIs are reached as webhooks are: through the same guard and allowed ranges.
  const guard = createSsrfGuard({ allowedCidrs: [...deps.config.webhooks.allowedCidrs] });
  return async (_payload, helpers) => {
    // Reports off: the counts are still kept, and still dropped when old.
    if (!sender) return purgeTlsReportData(deps.pool, new Date());
    const run = await sendTlsReports({
      pool: deps.pool,
      lookupTxt,
      guard,
      sender,
      allowUnverifiedFrom: deps.config.sending.allowUnverifiedFrom,
      postTimeoutMs: deps.config.webhooks.timeoutMs,
    });
    if (run.sent > 0) deps.metrics.tlsReportsSent.inc({ result: "sent" }, run.sent);
    if (run.failed > 0) deps.metrics.tlsReportsSent.inc({ result: "failed" }, run.failed);
    if (run.made + run.sent + run.failed + run.lookupErrors > 0)
      helpers.logger.info(`TLS reports: ${JSON.stringify(run)}`);
  };
}
