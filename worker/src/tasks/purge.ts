import { purgeAccountSendCounters } from "@mailroom/core/accounts";
import { purgeAuditEvents } from "@mailroom/core/audit";
import { purgeReports } from "@mailroom/core/bounces";
import { purgeDmarcData } from "@mailroom/core/domains";
import { prepareTimelinePartitions, purgeExpiredEmails, purgeIdempotencyKeys } from "@mailroom/core/emails";
import { purgeRateLimitCounters } from "@mailroom/core/limits";
import { purgeReputationCounters } from "@mailroom/core/reputation";
import { purgeEmailStats } from "@mailroom/core/stats";
import { purgeExpiredWebhookEvents } from "@mailroom/core/webhooks";
import type { Task } from "graphile-worker";
import "./types.ts";
import type { WorkerDeps } from "../deps.ts";

/**
 * Runs every five minutes (`PERIODIC_JOBS` in core/src/jobs): forgets expired idempotency keys, rate-limit
 * windows, quota windows, reputation counters past the week, the overview's counters past
 * MAILROOM_STATS_RETENTION_DAYS, processed bounce reports and DMARC report days past their retention, makes
 * the log's and the timeline's weekly partitions ahead, then drops whole weeks of both past the longest
 * retention and purges finished emails past their account's retention (ADR 0043, 0055) and webhook events
 * past the email retention (in short batches for at most a minute each; a backlog is worked off over several runs),
 * and audit rows past MAILROOM_AUDIT_RETENTION_DAYS (ADR 0062).
 * Idempotency keys go first: the configuration keeps their window inside the emails' retention.
 */
export function makePurgeTask(deps: WorkerDeps): Task<"purge_expired"> {
  return async (_payload, helpers) => {
    const keys = await purgeIdempotencyKeys(deps.pool, deps.config.limits.idempotencyRetentionHours);
    const windows =
      (await purgeRateLimitCounters(deps.pool)) +
      (await purgeAccountSendCounters(deps.pool)) +
      (await purgeReputationCounters(deps.pool, new Date())) +
      (await purgeEmailStats(deps.pool, new Date(), deps.config.limits.statsRetentionDays));
    const reports = await purgeReports(deps.pool, deps.config.inbound.reportRetentionHours);
    const dmarc = await purgeDmarcData(deps.pool);
    const made = await prepareTimelinePartitions(deps.pool);
    const days = deps.config.limits.emailRetentionDays;
    // Accounts may keep their emails for fewer or more days than the installation, even when it keeps them forever.
    const purge = await purgeExpiredEmails(deps.pool, days);
    const events = days > 0 ? await purgeExpiredWebhookEvents(deps.pool, days) : 0;
    const audit = await purgeAuditEvents(deps.pool, deps.config.audit.retentionDays);
    helpers.logger.info(
      `purged ${keys} idempotency key(s), ${windows} rate-limit window(s), ${reports} report(s), ` +
        `${dmarc} DMARC source day(s), ${purge.emails} email(s), ${events} webhook event(s) and ${audit} audit ` +
        `row(s); ` +
        `partitions made: ${made.join(", ") || "none"}, dropped: ${purge.partitions.join(", ") || "none"}`,
    );
  };
}
