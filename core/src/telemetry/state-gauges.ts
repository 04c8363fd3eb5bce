import type { Registry } from "prom-client";
import { Gauge } from "prom-client";
import type { Queryable } from "../db/pool.ts";
import { countDomainsByStatus, countFailingChecks } from "../domains/counts.ts";
import { type Backlog, readBacklog } from "../emails/backlog.ts";
import { countEndpointsByState, type EndpointCounts } from "../webhooks/counts.ts";

interface StateSnapshot {
  backlog: Backlog;
  domains: Record<string, number>;
  failingChecks: Record<string, number>;
  endpoints: EndpointCounts;
}

/**
 * Gauges of what the database holds: the mail backlog, domains by verification status, domains failing each
 * compliance check and webhook endpoints by state. They describe the whole installation, so one program (the worker) exports them; with
 * several replicas each reports the same figure and alerts take `max`. Reads are shared by the gauges of
 * one scrape and cached for `minIntervalMs`, so many scrapers cost the database one query set at most that
 * often.
 */
export function observeDatabaseState(
  registry: Registry,
  db: Queryable,
  options: { minIntervalMs?: number; now?: () => number } = {},
): void {
  const minIntervalMs = options.minIntervalMs ?? 5_000;
  const now = options.now ?? Date.now;
  let cached: { at: number; snapshot: Promise<StateSnapshot> } | undefined;
  const read = (): Promise<StateSnapshot> => {
    if (!cached || now() - cached.at >= minIntervalMs) {
      const snapshot = Promise.all([
        readBacklog(db),
        countDomainsByStatus(db),
        countEndpointsByState(db),
        countFailingChecks(db),
      ]).then(([backlog, domains, endpoints, failingChecks]) => ({
        backlog,
        domains,
        endpoints,
        failingChecks,
      }));
      // A failed read is not kept: the next scrape tries again.
      snapshot.catch(() => {
        cached = undefined;
      });
      cached = { at: now(), snapshot };
    }
    return cached.snapshot;
  };
  new Gauge({
    name: "mailroom_emails",
    help: "Emails that have not left yet, by status (scheduled, queued, deferred, sending).",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const { backlog } = await read();
      for (const [status, n] of Object.entries(backlog.counts)) this.set({ status }, n);
    },
  });
  new Gauge({
    name: "mailroom_emails_oldest_age_seconds",
    help: "Seconds since the oldest email of a status was accepted (queued, deferred); 0 when there is none.",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const { backlog } = await read();
      this.set({ status: "queued" }, backlog.oldestQueuedSeconds);
      this.set({ status: "deferred" }, backlog.oldestDeferredSeconds);
    },
  });
  new Gauge({
    name: "mailroom_domains",
    help: "Sending domains by verification status (pending, verified, failed, temporary_failure).",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const { domains } = await read();
      for (const [status, n] of Object.entries(domains)) this.set({ status }, n);
    },
  });
  new Gauge({
    name: "mailroom_domain_checks_failing",
    help: "Sending domains failing a compliance check, by check (SPF, DKIM, DMARC, BounceMX, ReverseDNS, TLS).",
    labelNames: ["check"] as const,
    registers: [registry],
    async collect() {
      const { failingChecks } = await read();
      for (const [check, n] of Object.entries(failingChecks)) this.set({ check }, n);
    },
  });
  new Gauge({
    name: "mailroom_webhook_endpoints",
    help: "Webhook endpoints by state (enabled, failing: enabled with a run of failures, disabled).",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const { endpoints } = await read();
      for (const [state, n] of Object.entries(endpoints)) this.set({ state }, n);
    },
  });
}
