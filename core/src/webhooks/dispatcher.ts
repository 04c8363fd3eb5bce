import { createBatcher, isolatingItemErrors } from "../db/batcher.ts";
import type { Pool } from "../db/pool.ts";
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimStreamHeads,
  completeAttempt,
  type DeliveredAttempt,
  isDelivered,
  recordSuccesses,
  type StreamClaim,
} from "./dispatch.ts";
import type { PostResult } from "./post.ts";
import type { RetryPolicy } from "./schedule.ts";
import type { WebhookStream } from "./types.ts";

export interface WebhookDispatcherOptions {
  /** How long a claimed head stays leased to its worker: longer than the slowest attempt. */
  leaseMs: number;
  policy: RetryPolicy;
  /** The clock a batch of claims is taken at. */
  now: () => Date;
}

export interface WebhookDispatcher {
  /** The stream's head for one attempt, or why there is none (see `claimStreamHeads`). */
  claim(stream: WebhookStream): Promise<StreamClaim>;
  /** Records an attempt's result and decides what follows (see `completeAttempt`). */
  complete(delivery: ClaimedDelivery, result: PostResult, now: Date): Promise<AttemptOutcome>;
}

// Two statements in flight per kind: one is being answered while the next gathers.
const BATCHING = { concurrency: 2, maxBatch: 100 };

/**
 * Claims and records through shared statements: a worker sends to many streams at once, and their claims and
 * successful attempts ride together in one `mailroom_webhook_claim_heads` / `mailroom_webhook_record_successes`
 * call instead of one round trip each, which on a small machine is what bounds the delivery rate. Each stream
 * still waits for its own claim and record before its next event, so per-stream order is untouched. A failed
 * attempt is recorded alone, in its own transaction with its retry plan (`completeAttempt`): one failure
 * neither delays nor fails the successes it was sent with.
 */
export function createWebhookDispatcher(pool: Pool, options: WebhookDispatcherOptions): WebhookDispatcher {
  const claim = createBatcher(
    isolatingItemErrors((streams: WebhookStream[]) =>
      claimStreamHeads(pool, streams, options.now(), options.leaseMs),
    ),
    BATCHING,
  );
  const record = createBatcher(
    isolatingItemErrors(async (attempts: DeliveredAttempt[]) => {
      await recordSuccesses(pool, attempts);
      return attempts.map((): AttemptOutcome => ({ kind: "succeeded" }));
    }),
    BATCHING,
  );
  return {
    claim,
    complete: (delivery, result, now) =>
      isDelivered(result)
        ? record({ delivery, result, at: now })
        : completeAttempt(pool, delivery, result, options.policy, now),
  };
}
