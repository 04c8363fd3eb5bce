import type { Pool } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { scheduleNewDeliveries, scheduleStreamWakeups } from "./outbox.ts";
import type { PostResult } from "./post.ts";
import { type FailurePlan, parseRetryAfter, planAfterFailure, type RetryPolicy } from "./schedule.ts";
import { disableEndpoint } from "./store.ts";
import type { WebhookStream } from "./types.ts";

/**
 * Turns outbox events into deliveries, one per subscribed enabled endpoint of the event's account, and adds a
 * few `webhook_deliver` jobs covering them. Repeating it is harmless: a delivery exists once per pair.
 */
export async function fanOutEvents(pool: Pool, eventIds: readonly string[]): Promise<number> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ endpoint_id: string; stream: string }>(
      `insert into webhook_deliveries (endpoint_id, event_id, stream, event_seq)
       select p.id, v.id, v.stream, v.seq
       from webhook_events v
       join webhook_endpoints p on p.account = v.account and p.enabled
         and (cardinality(p.event_types) = 0 or v.type = any(p.event_types))
       where v.id = any($1::uuid[])
       order by v.seq
       on conflict (endpoint_id, event_id) do nothing
       returning endpoint_id, stream`,
      [eventIds],
    );
    await scheduleNewDeliveries(
      client,
      rows.map((r) => ({ endpointId: r.endpoint_id, stream: r.stream })),
    );
    return rows.length;
  });
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
}

export type StreamClaim =
  | { kind: "idle" }
  | { kind: "busy" }
  | { kind: "wait"; until: Date }
  | { kind: "deliver"; delivery: ClaimedDelivery };

/**
 * Takes the oldest pending delivery of a stream for one attempt, under a lease of `leaseMs`. Strict order:
 * nothing behind the head is sent while the head waits for its retry. A stream whose head is leased by
 * another worker is `busy` (that worker continues it); a crashed worker's lease simply runs out. A head not yet
 * due is `wait`, and its wake-up job is scheduled in the same transaction.
 */
export async function claimStreamHead(
  pool: Pool,
  stream: WebhookStream,
  now: Date,
  leaseMs: number,
): Promise<StreamClaim> {
  // The common case (head due, endpoint enabled, not leased) is one statement: this is the hot path.
  const { rows } = await pool.query<{
    id: string;
    event_id: string;
    attempts: number;
    schedule_step: number;
    next_attempt_at: Date;
    lease_until: Date | null;
    claimed: boolean;
    enabled: boolean;
    url: string;
    type: string;
    created_at: Date;
    data: unknown;
    secrets: string[];
  }>(
    `with head as (
       select id, event_id, attempts, schedule_step, next_attempt_at, lease_until
       from webhook_deliveries
       where endpoint_id = $1 and stream = $2 and state = 'pending'
       order by event_seq limit 1
       for update
     ), claimed as (
       update webhook_deliveries d set lease_until = $4
       from head, webhook_endpoints p
       where d.id = head.id and p.id = $1 and p.enabled
         and (head.lease_until is null or head.lease_until <= $3) and head.next_attempt_at <= $3
       returning d.id
     )
     select head.*, exists (select 1 from claimed) as claimed, p.enabled, p.url, v.type, v.created_at, v.data,
            array(select secret from webhook_secrets s
                  where s.endpoint_id = $1 and (s.expires_at is null or s.expires_at > $3)
                  order by s.id desc) as secrets
     from head join webhook_endpoints p on p.id = $1 join webhook_events v on v.id = head.event_id`,
    [stream.endpointId, stream.stream, now, new Date(now.getTime() + leaseMs)],
  );
  const head = rows[0];
  if (!head) return { kind: "idle" };
  if (head.claimed) {
    return {
      kind: "deliver",
      delivery: {
        id: head.id,
        endpointId: stream.endpointId,
        stream: stream.stream,
        url: head.url,
        eventId: head.event_id,
        event: { type: head.type, createdAt: head.created_at, data: head.data },
        secrets: head.secrets,
        step: head.schedule_step,
        attempts: head.attempts,
      },
    };
  }
  if (!head.enabled) {
    await pool.query(
      `update webhook_deliveries set state = 'failed', last_error = 'endpoint disabled', updated_at = now()
       where endpoint_id = $1 and state = 'pending'`,
      [stream.endpointId],
    );
    return { kind: "idle" };
  }
  if (head.lease_until && head.lease_until > now) return { kind: "busy" };
  // Woken early (a new event, a replay): sleep again until the head is due.
  await scheduleStreamWakeups(pool, [stream], head.next_attempt_at);
  return { kind: "wait", until: head.next_attempt_at };
}

export type AttemptOutcome = { kind: "succeeded" } | FailurePlan;

/**
 * Records one attempt and decides what follows: success resets the endpoint's failure streak; a failure
 * follows the retry policy (next step with its wake-up job, give up, or disable the endpoint).
 */
export async function completeAttempt(
  pool: Pool,
  delivery: ClaimedDelivery,
  result: PostResult,
  policy: RetryPolicy,
  now: Date,
): Promise<AttemptOutcome> {
  const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  if (ok) {
    // One statement on the hot path. The endpoint row is written only when a failure streak ends: writing it
    // on every success would serialise all deliveries to the endpoint on its row lock.
    await pool.query(
      `with attempt as (
         insert into webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, response_excerpt)
         values ($1, $2, $3, $4, $5, $6)
       ), streak as (
         update webhook_endpoints set failing_since = null where id = $7 and failing_since is not null
       )
       update webhook_deliveries set state = 'succeeded', attempts = attempts + 1, lease_until = null,
         last_status_code = $5, last_error = null, delivered_at = $3, updated_at = now()
       where id = $1`,
      [
        delivery.id,
        delivery.attempts + 1,
        now,
        result.durationMs,
        result.statusCode,
        result.responseExcerpt ?? null,
        delivery.endpointId,
      ],
    );
    return { kind: "succeeded" };
  }
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ failing_since: Date }>(
      `update webhook_endpoints set failing_since = coalesce(failing_since, $2) where id = $1
       returning failing_since`,
      [delivery.endpointId, now],
    );
    const plan = planAfterFailure(
      {
        step: delivery.step,
        statusCode: result.statusCode,
        retryAfterMs: parseRetryAfter(result.retryAfter, now),
        failingSince: rows[0]?.failing_since ?? now,
        now,
      },
      policy,
    );
    const nextAt = plan.kind === "retry" ? plan.at : null;
    await client.query(
      `with attempt as (
         insert into webhook_attempts
           (delivery_id, attempt, at, duration_ms, status_code, response_excerpt, error, next_attempt_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
       )
       update webhook_deliveries set state = $9, attempts = attempts + 1, schedule_step = $10,
         next_attempt_at = coalesce($8, next_attempt_at), lease_until = null, last_status_code = $5,
         last_error = $11, updated_at = now()
       where id = $1`,
      [
        delivery.id,
        delivery.attempts + 1,
        now,
        result.durationMs,
        result.statusCode ?? null,
        result.responseExcerpt ?? null,
        result.error ?? null,
        nextAt,
        plan.kind === "retry" ? "pending" : "failed",
        plan.kind === "retry" ? plan.step : delivery.step,
        result.error ?? `HTTP ${result.statusCode}`,
      ],
    );
    if (plan.kind === "retry") {
      // The wake-up commits with the attempt's record: a crash here cannot strand a pending delivery.
      await scheduleStreamWakeups(
        client,
        [{ endpointId: delivery.endpointId, stream: delivery.stream }],
        plan.at,
      );
    }
    if (plan.kind === "disable_endpoint") await disableEndpoint(client, delivery.endpointId, plan.reason);
    return plan;
  });
}
