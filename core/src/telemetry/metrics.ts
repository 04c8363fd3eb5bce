import { readFileSync } from "node:fs";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The release, read once from core's package.json (every workspace shares one version). */
const VERSION: string = (() => {
  try {
    const file = new URL("../../package.json", import.meta.url);
    return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
})();

/**
 * A program's registry: its default labels, the Node process metrics and `mailroom_build_info`. Each program
 * builds its own and registers only the series it updates, so no scrape shows a metric that is always zero.
 */
export function createProgramRegistry(program: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ program });
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "mailroom_build_info",
    help: "Always 1; the labels say which release and Node version this program runs.",
    labelNames: ["version", "node_version"] as const,
    registers: [registry],
  }).set({ version: VERSION, node_version: process.versions.node }, 1);
  return registry;
}

/** The pool a program's database gauges read (pg's Pool has these counters). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** Database pool gauges, read at scrape time: a pool with waiters is the first sign of a slow database. */
export function observePool(registry: Registry, pool: PoolCounts, max: number): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge(
    "mailroom_db_pool_connections",
    "Connections open in the program's database pool.",
    () => pool.totalCount,
  );
  gauge("mailroom_db_pool_idle_connections", "Open connections not lent to a query.", () => pool.idleCount);
  gauge(
    "mailroom_db_pool_waiting_requests",
    "Queries waiting for a free connection.",
    () => pool.waitingCount,
  );
  gauge("mailroom_db_pool_max_connections", "The pool's size limit.", () => max);
}

/** The API's own series. */
export function createApiMetrics(registry: Registry = createProgramRegistry("api")) {
  return {
    registry,
    httpRequests: new Counter({
      name: "mailroom_http_requests_total",
      help: "API requests answered, by route, method and status code.",
      labelNames: ["route", "method", "status"] as const,
      registers: [registry],
    }),
    // Most answers take 1-20 ms (a send commits in a group of several); the tail reaches a second under load.
    httpDuration: new Histogram({
      name: "mailroom_http_request_duration_seconds",
      help: "API request duration in seconds, by route.",
      labelNames: ["route"] as const,
      buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    emailsAccepted: new Counter({
      name: "mailroom_emails_accepted_total",
      help: "Emails accepted by the API, by result (queued, scheduled, duplicate).",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    dbReads: new Counter({
      name: "mailroom_db_reads_total",
      help: "Email log and console reads, by where they ran: a replica fresh enough, or the primary (ADR 0032).",
      labelNames: ["served_by"] as const,
      registers: [registry],
    }),
    batchRequests: new Gauge({
      name: "mailroom_batch_requests",
      help: "Batch requests admitted (body read, parsed, committing) or waiting for a slot, with body unread.",
      labelNames: ["state"] as const,
      registers: [registry],
    }),
  };
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;

/** The worker's own series: what it delivered, to whom it posted webhooks, and what it noticed. */
export function createWorkerMetrics(registry: Registry = createProgramRegistry("worker")) {
  return {
    registry,
    deliveryOutcomes: new Counter({
      name: "mailroom_delivery_outcomes_total",
      help:
        "Emails finished by a delivery attempt, by outcome (delivered, deferred, bounced, failed), reason " +
        "(ok, smtp_4xx, smtp_5xx, connection, shaped, retries_exhausted, api_key_revoked, api_key_expired, " +
        "suppressed) and transport (relay, direct).",
      labelNames: ["outcome", "reason", "transport"] as const,
      registers: [registry],
    }),
    daneValidating: new Gauge({
      name: "mailroom_delivery_dane_validating",
      help:
        "1 when direct delivery honours DANE (MAILROOM_DNS_VALIDATES_DNSSEC: the resolver validates " +
        "DNSSEC), 0 when TLSA records go unchecked (relay mode, or a resolver not declared validating).",
      registers: [registry],
    }),
    deliveryTls: new Counter({
      name: "mailroom_delivery_tls_total",
      help:
        "SMTP sessions of delivery attempts by the rule that checked their TLS (mechanism: mta-sts, dane, " +
        "opportunistic, relay) and the outcome in RFC 8460's result types (success, starttls-not-supported, " +
        "certificate-expired, certificate-host-mismatch, certificate-not-trusted, validation-failure, …).",
      labelNames: ["mechanism", "result"] as const,
      registers: [registry],
    }),
    // A relay on the same network answers in 5-50 ms; a remote MX with greylisting or a slow TLS handshake
    // takes seconds, and the transport gives up after its timeout (tens of seconds).
    deliveryDuration: new Histogram({
      name: "mailroom_delivery_duration_seconds",
      help: "Time of one SMTP handover attempt in seconds (compose, sign, send), by transport.",
      labelNames: ["transport"] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: "mailroom_webhook_attempts_total",
      help: "Webhook POSTs made, by result (succeeded, retry, give_up, disable_endpoint).",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    // Receivers answer in tens of milliseconds; the whole-request timeout is 15 s by default.
    webhookDuration: new Histogram({
      name: "mailroom_webhook_request_duration_seconds",
      help: "Time of one webhook POST in seconds, until the receiver's answer or the timeout.",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
      registers: [registry],
    }),
    webhookEndpointsDisabled: new Counter({
      name: "mailroom_webhook_endpoints_disabled_total",
      help: "Webhook endpoints this worker disabled (410 Gone or too long a run of failures).",
      registers: [registry],
    }),
    dkimRotationSteps: new Counter({
      name: "mailroom_dkim_rotation_steps_total",
      help:
        "DKIM rotation steps taken, by step: generate (a new key to publish), activate (signing switched), " +
        "withdraw (an old selector removed), replace (a compromised key replaced at once).",
      labelNames: ["step"] as const,
      registers: [registry],
    }),
    accountsPaused: new Counter({
      name: "mailroom_accounts_paused_total",
      help: "Accounts the reputation guard paused (a bounce or complaint rate reached its pause line).",
      registers: [registry],
    }),
    domainVerificationLost: new Counter({
      name: "mailroom_domain_verification_lost_total",
      help: "Verified domains that a recheck found no longer verified (a DNS record disappeared or changed).",
      registers: [registry],
    }),
    tlsRecordFailures: new Counter({
      name: "mailroom_tls_sessions_unrecorded_total",
      help: "Delivery sessions whose TLS outcome could not be added to the day's TLS report counts.",
      registers: [registry],
    }),
    tlsReportsSent: new Counter({
      name: "mailroom_tls_reports_total",
      help: "TLS report sends (RFC 8460) by result: sent (POSTed, or accepted as an email), failed (retried).",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    // Direct delivery's shaping per destination (ADR 0059); the label is a provider group or `other`.
    destinationDeferrals: new Counter({
      name: "mailroom_delivery_destination_deferrals_total",
      help:
        "Recipients deferred in direct delivery, by destination (a provider group, or other) and reason: " +
        "rate_limited (the receiver's 421 or 4.7.x), other (any other 4xx or connection trouble), " +
        "backed_off (not attempted: the destination is paused), busy (not attempted: no slot in time).",
      labelNames: ["destination", "reason"] as const,
      registers: [registry],
    }),
    destinationBackoffs: new Counter({
      name: "mailroom_delivery_destination_backoffs_total",
      help: "Times a destination was backed off (paused, its concurrency and rate lowered) after a rate-limit reply.",
      labelNames: ["destination"] as const,
      registers: [registry],
    }),
    destinationsBackedOff: new Gauge({
      name: "mailroom_delivery_destination_backed_off",
      help:
        "Destinations of this label running below their configured limits after a rate-limit reply " +
        "(a provider group: 0 or 1), in this worker process.",
      labelNames: ["destination"] as const,
      registers: [registry],
    }),
    handoverToRecord: new Histogram({
      name: "mailroom_delivery_unrecorded_seconds",
      help:
        "Time from the receiver's answer to the attempt's record in Postgres: a worker that dies within it " +
        "leaves the email to be sent again.",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers: [registry],
    }),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** The SMTP program's own series (submission, ADR 0019). */
export function createSmtpMetrics(registry: Registry = createProgramRegistry("smtp")) {
  return {
    registry,
    emailsAccepted: new Counter({
      name: "mailroom_emails_accepted_total",
      help: "Emails accepted by SMTP submission, by result (queued, duplicate).",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    smtpAuthFailures: new Counter({
      name: "mailroom_smtp_auth_failures_total",
      help:
        "Failed SMTP AUTH attempts, by reason (invalid: wrong credentials, answered slower after a few from " +
        "one address; blocked: the address refused outright for a while).",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    smtpRefusals: new Counter({
      name: "mailroom_smtp_refusals_total",
      help: "SMTP submission commands refused, by reply code.",
      labelNames: ["code"] as const,
      registers: [registry],
    }),
  };
}

export type SmtpMetrics = ReturnType<typeof createSmtpMetrics>;
