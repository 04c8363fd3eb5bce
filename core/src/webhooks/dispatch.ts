import type { Pool, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import type { TraceCarrier } from "../jobs/index.ts";
import type { PostResult } from "./post.ts";
import { type FailurePlan, parseRetryAfter, planAfterFailure, type RetryPolicy } from "./schedule.ts";
import { disableEndpoint } from "./store.ts";
import type { WebhookStream } from "./types.ts";

/**
 * Turns outbox events into deliveries, one per subscribed enabled endpoint of the event's account, and adds a
 * few `webhook_deliver` jobs covering them, in one round trip (`mailroom_webhook_fan_out`).
 * Repeating it is harmless: a delivery exists once per pair.
 */
export async function fanOutEvents(pool: Pool, eventIds: readonly string[]): Promise<number> {
  const { rows } = await pool.query<{ created: number }>({
    name: "mailroom_webhook_fan_out",
    text: "select mailroom_webhook_fan_out($1::uuid[]) as created",
    values: [eventIds],
  });
  return rows[0]?.created ?? 0;
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  stream: string;
  url: string;
  eventId: string;
  event: { type: string; createdAt: Date; data: unknown };
  secrets: string[];
  step: number;
  attempts: number;
  /** Since when the endpoint has been failing, as the claim read it (null: it was not). */
  failingSince: Date | null;
  /** Trace context stored with the event: the POST continues the trace of the change it reports. */
  trace: TraceCarrier | null;
}

export type StreamClaim =
  | { kind: "idle" }
  | { kind: "busy" }
  | { kind: "wait"; until: Date }
  | { kind: "deliver"; delivery: ClaimedDelivery };

interface ClaimRow {
  outcome: StreamClaim["kind"];
  delivery_id: string | null;
  event_id: string | null;
  attempts: number | null;
  schedule_step: number | null;
  next_attempt_at: Date | null;
  url: string | null;
  event_type: string | null;
  event_created_at: Date | null;
  event_data: unknown;
  secrets: string[] | null;
  event_trace: TraceCarrier | null;
  endpoint_failing_since: Date | null;
}

function toClaim(stream: WebhookStream, row: ClaimRow | undefined): StreamClaim {
  if (!row) throw new Error("mailroom_webhook_claim_heads returned fewer rows than streams");
  if (row.outcome === "wait") return { kind: "wait", until: row.next_attempt_at as Date };
  if (row.outcome !== "deliver") return { kind: row.outcome };
  return {
    kind: "deliver",
    delivery: {
      id: row.delivery_id as string,
      endpointId: stream.endpointId,
      stream: stream.stream,
      url: row.url as string,
      eventId: row.event_id as string,
      event: {
        type: row.event_type as string,
        createdAt: row.event_created_at as Date,
        data: row.event_data,
      },
      secrets: row.secrets ?? [],
      step: row.schedule_step as number,
      attempts: row.attempts as number,
      failingSince: row.endpoint_failing_since,
      trace: row.event_trace,
    },
  };
}

/**
 * Takes the oldest pending delivery of each stream for one attempt, under a lease of `leaseMs`, in one round
 * trip (`mailroom_webhook_claim_heads`); one claim per stream, in order. Strict order: nothing
 * behind a head is sent while the head waits for its retry. A stream whose head another worker holds (leased,
 * or locked while being claimed or recorded) is `busy`: that worker continues it; a crashed worker's lease
 * simply runs out. A head not yet due is `wait`, and its wake-up job is scheduled in the same statement. A
 * disabled endpoint's streams are `idle`, their pending deliveries failed.
 */
export async function claimStreamHeads(
  pool: Pool,
  streams: readonly WebhookStream[],
  now: Date,
  leaseMs: number,
): Promise<StreamClaim[]> {
  if (streams.length === 0) return [];
  const { rows } = await pool.query<ClaimRow>({
    name: "mailroom_webhook_claim_heads",
    text: "select * from mailroom_webhook_claim_heads($1::uuid[], $2::text[], $3, $4)",
    values: [
      streams.map((s) => s.endpointId),
      streams.map((s) => s.stream),
      now,
      new Date(now.getTime() + leaseMs),
    ],
  });
  return streams.map((stream, i) => toClaim(stream, rows[i]));
}

/** A 2xx answer: the rule a delivery succeeds by. */
export function isDelivered(result: PostResult): boolean {
  return result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
}

/** A successful attempt to record: the claimed delivery, the receiver's answer and when it came. */
export interface DeliveredAttempt {
  delivery: ClaimedDelivery;
  result: PostResult;
  at: Date;
}

/**
 * Records successful attempts in one round trip (`mailroom_webhook_record_successes`): each
 * delivery `succeeded` with its attempt row, and its endpoint's failure streak ended. An attempt whose
 * delivery was deleted meanwhile (its endpoint removed) is dropped with it.
 */
export async function recordSuccesses(pool: Pool, attempts: readonly DeliveredAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await pool.query({
    name: "mailroom_webhook_record_successes",
    text: "select mailroom_webhook_record_successes($1::uuid[], $2::uuid[], $3, $4, $5, $6, $7)",
    values: [
      attempts.map((a) => a.delivery.id),
      [...new Set(attempts.map((a) => a.delivery.endpointId))],
      attempts.map((a) => a.delivery.attempts + 1),
      attempts.map((a) => a.at),
      attempts.map((a) => a.result.durationMs),
      attempts.map((a) => a.result.statusCode ?? null),
      attempts.map((a) => a.result.responseExcerpt ?? null),
    ],
  });
}

export type AttemptOutcome = { kind: "succeeded" } | FailurePlan;

/**
 * Records one attempt and decides what follows: success resets the endpoint's failure streak; a failure
 * follows the retry policy (next step with its wake-up job, give up, or disable the endpoint). TypeScript
 * decides; the SQL functions of successes and failures write.
 */
export async function completeAttempt(
  pool: Pool,
  delivery: ClaimedDelivery,
  result: PostResult,
  policy: RetryPolicy,
  now: Date,
): Promise<AttemptOutcome> {
  if (isDelivered(result)) {
    await recordSuccesses(pool, [{ delivery, result, at: now }]);
    return { kind: "succeeded" };
  }
  const plan = planAfterFailure(
    {
      step: delivery.step,
      statusCode: result.statusCode,
      retryAfterMs: parseRetryAfter(result.retryAfter, now),
      // As the claim read it; a streak another worker started since then starts now for this decision.
      failingSince: delivery.failingSince ?? now,
      now,
    },
    policy,
  );
  const record = (db: Queryable) =>
    db.query({
      name: "mailroom_webhook_record_failure",
      text: "select mailroom_webhook_record_failure($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
      values: [
        delivery.id,
        delivery.endpointId,
        delivery.stream,
        delivery.attempts + 1,
        now,
        result.durationMs,
        result.statusCode ?? null,
        result.responseExcerpt ?? null,
        result.error ?? null,
        plan.kind === "retry" ? plan.at : null,
        plan.kind === "retry" ? plan.step : delivery.step,
      ],
    });
  if (plan.kind !== "disable_endpoint") {
    await record(pool);
    return plan;
  }
  return withTransaction(pool, async (client) => {
    await record(client);
    await disableEndpoint(client, delivery.endpointId, plan.reason);
    return plan;
  });
}
