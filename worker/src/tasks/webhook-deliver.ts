import type { Pool } from "@mailroom/core/db";
import { enqueueStreamBatch, enqueueStreamWakeups } from "@mailroom/core/jobs";
import { type WorkerMetrics, withChildSpan, withSpanContinuing } from "@mailroom/core/telemetry";
import {
  type ClaimedDelivery,
  createEndpointAccounts,
  createSsrfGuard,
  createWebhookDispatcher,
  createWebhookHttpClient,
  createWebhookSigner,
  DEFAULT_RETRY_POLICY,
  type HostResolver,
  type PostResult,
  type RetryPolicy,
  type SsrfGuard,
  type WebhookHttpClient,
  type WebhookStream,
  WebhookTargetRefusedError,
  webhookBody,
} from "@mailroom/core/webhooks";
import type { JobHelpers, Task } from "graphile-worker";
import { makeWebhookFanoutTask } from "./webhook-fanout.ts";
import { createWebhookShare, defaultShareLimits, type WebhookShareLimits } from "./webhook-share.ts";

/** What the webhook tasks need; every setting has the production default. */
export interface WebhookTaskDeps {
  pool: Pool;
  retryPolicy?: RetryPolicy;
  /** CIDRs reachable although private or loopback (MAILROOM_WEBHOOK_ALLOWED_CIDRS). */
  allowedCidrs?: readonly string[];
  /** Host resolution, replaceable so tests can point names at a DNS server of their own. */
  resolve?: HostResolver;
  /** Whole-request timeout (default 15 s). */
  timeoutMs?: number;
  /** Connect and first-byte timeouts (defaults 3 s and 10 s, see createWebhookHttpClient). */
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  /**
   * The worker's background slots (MAILROOM_WORKER_BACKGROUND_CONCURRENCY): an account's jobs hold at most a
   * quarter of them, unless `fairness` says otherwise.
   */
  backgroundSlots?: number;
  fairness?: Partial<WebhookShareLimits>;
  /** How much later a stream whose endpoint had its share in flight is tried again (default 2 s). */
  deferMs?: number;
  /** Attempts per stream before a job hands it to a fresh job, so a busy stream cannot hog a worker. */
  batchSize?: number;
  /** Streams one job sends to at the same time (default 16). */
  streamsInParallel?: number;
  now?: () => Date;
  /** Attempt, latency and disabled-endpoint series; the worker program passes its own. */
  metrics?: Pick<WorkerMetrics, "webhookAttempts" | "webhookDuration" | "webhookEndpointsDisabled">;
}

// Longer than a handed-over stream normally waits in memory; only a crashed worker's leftovers need it.
const HANDOVER_SAFETY_MS = 60_000;

export interface WebhookTasks {
  taskList: { webhook_fanout: Task<"webhook_fanout">; webhook_deliver: Task<"webhook_deliver"> };
  /** Closes the kept-alive receiver connections; call after the runner has stopped. */
  close(): void;
}

async function attempt(
  delivery: ClaimedDelivery,
  guard: SsrfGuard,
  http: WebhookHttpClient,
  now: Date,
): Promise<PostResult> {
  try {
    const target = await guard.resolveTarget(delivery.url);
    const body = webhookBody(delivery.event);
    const headers = createWebhookSigner(delivery.secrets).sign(delivery.eventId, now, body);
    // The POST continues the trace of the change its event reports (an email's accept or delivery), linked
    // to this attempt's span, so one trace follows an email to its webhooks too.
    return await withSpanContinuing(
      "webhook POST",
      delivery.trace,
      { "mailroom.webhook_event_id": delivery.eventId, "mailroom.webhook_event_type": delivery.event.type },
      async (span) => {
        const result = await http.post(target, { ...headers }, body);
        if (result.statusCode !== undefined)
          span.setAttribute("http.response.status_code", result.statusCode);
        return result;
      },
    );
  } catch (error) {
    // Whether the name resolves, and to what, is not the tenant's to learn through the API (ADR 0027).
    if (error instanceof WebhookTargetRefusedError)
      return { error: "refused: not an allowed target", detail: error.message, durationMs: 0 };
    throw error;
  }
}

/**
 * The webhook tasks. `webhook_deliver` works through each of its streams in event order: it sends the head,
 * records the attempt, and moves on; after a failure the stream stops until its scheduled wake-up, so a later
 * event of the same email never overtakes an earlier one. Streams of one job run side by side, and the claims
 * and successful records of every stream in flight on this worker share statements (a failure is recorded
 * alone): per-delivery round trips to Postgres, not HTTP, bounded the delivery rate.
 */
export function makeWebhookTasks(deps: WebhookTaskDeps): WebhookTasks {
  const policy = deps.retryPolicy ?? DEFAULT_RETRY_POLICY;
  const guard = createSsrfGuard({
    allowedCidrs: deps.allowedCidrs ?? [],
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  });
  const http = createWebhookHttpClient({
    ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }),
    ...(deps.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: deps.connectTimeoutMs }),
    ...(deps.firstByteTimeoutMs === undefined ? {} : { firstByteTimeoutMs: deps.firstByteTimeoutMs }),
  });
  // The lease outlives the slowest attempt (timeout plus resolution and bookkeeping).
  const leaseMs = (deps.timeoutMs ?? 15_000) + 30_000;
  const perStream = deps.batchSize ?? 50;
  const parallel = deps.streamsInParallel ?? 16;
  const clock = deps.now ?? (() => new Date());
  const share = createWebhookShare({
    ...defaultShareLimits(deps.backgroundSlots ?? 8, parallel),
    ...deps.fairness,
  });
  const accountOf = createEndpointAccounts(deps.pool);
  const deferMs = deps.deferMs ?? 2_000;
  const wakeLater = (streams: readonly WebhookStream[], ms: number) =>
    enqueueStreamWakeups(deps.pool, streams, new Date(clock().getTime() + ms));
  // Shared by every job of this worker: streams sent to at the same time share claim and record statements.
  const dispatcher = createWebhookDispatcher(deps.pool, { leaseMs, policy, now: clock });

  async function drain(stream: WebhookStream, helpers: JobHelpers): Promise<void> {
    for (let sent = 0; sent < perStream; sent++) {
      const claim = await dispatcher.claim(stream);
      if (claim.kind !== "deliver") return;
      const delivery = claim.delivery;
      // One span per attempt (its POST and its bookkeeping), under the job's span: the log lines written
      // meanwhile carry its ids.
      const outcome = await withChildSpan("webhook attempt", undefined, async (span) => {
        span.setAttribute("mailroom.webhook_delivery_id", delivery.id);
        const result = await attempt(delivery, guard, http, clock());
        const outcome = await dispatcher.complete(delivery, result, clock());
        span.setAttribute("mailroom.outcome", outcome.kind);
        if (result.statusCode !== undefined)
          span.setAttribute("http.response.status_code", result.statusCode);
        deps.metrics?.webhookAttempts.inc({ result: outcome.kind });
        deps.metrics?.webhookDuration.observe(result.durationMs / 1000);
        if (outcome.kind === "disable_endpoint") deps.metrics?.webhookEndpointsDisabled.inc();
        if (outcome.kind !== "succeeded") {
          helpers.logger.info(
            `webhook delivery ${delivery.id} attempt failed (${result.statusCode ?? result.detail ?? result.error}): ${outcome.kind}`,
          );
        }
        return outcome;
      });
      // A retry's wake-up job is already scheduled; a disabled endpoint has nothing left to send.
      if (outcome.kind === "retry" || outcome.kind === "disable_endpoint") return;
    }
    // Budget spent with work possibly left: a fresh job continues the stream after other queued work.
    await enqueueStreamWakeups(deps.pool, [stream]);
  }

  /**
   * Runs a job's streams within the account's share of this worker (see webhook-share.ts). Streams handed
   * to the account's running jobs live in memory only, so they get one job `HANDOVER_SAFETY_MS` later should
   * this worker die first (it finds them idle when they were drained meanwhile); a stream whose endpoint had
   * its share in flight, or a job that could neither run nor hand over, is woken `deferMs` later.
   */
  const deliver: Task<"webhook_deliver"> = (payload, helpers) =>
    withChildSpan("webhook_deliver", undefined, async (span) => {
      const { endpointId } = payload;
      span.setAttribute("mailroom.webhook_endpoint_id", endpointId);
      const account = await accountOf(endpointId);
      // A deleted endpoint took its deliveries with it: nothing to send.
      if (account === undefined) return;
      const streams = payload.streams.map((stream) => ({ endpointId, stream }));
      const overLimit: WebhookStream[] = [];
      const outcome = await share.run(
        account,
        streams,
        parallel,
        (stream) => drain(stream, helpers),
        (stream) => overLimit.push(stream),
      );
      span.setAttribute("mailroom.share", outcome);
      // One job for the whole batch, not one per stream: a busy account hands over often.
      if (outcome === "handed_over") {
        await enqueueStreamBatch(
          deps.pool,
          endpointId,
          payload.streams,
          new Date(clock().getTime() + HANDOVER_SAFETY_MS),
        );
      }
      if (outcome === "refused") await wakeLater(streams, deferMs);
      if (overLimit.length > 0) await wakeLater(overLimit, deferMs);
    });

  return {
    taskList: { webhook_fanout: makeWebhookFanoutTask(deps), webhook_deliver: deliver },
    close: () => http.close(),
  };
}
