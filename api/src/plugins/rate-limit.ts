import { MailroomError } from "@mailroom/core/errors";
import { hitRateLimit } from "@mailroom/core/limits";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../deps.ts";

/**
 * Per-key and per-account request limits, after authentication (an anonymous caller cannot spend a key's
 * budget). Every limited response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`;
 * over the limit the answer is 429 `rate_limit_exceeded` with `Retry-After`.
 */
export function registerRateLimit(app: FastifyInstance, deps: ApiDeps): void {
  const now = deps.now ?? (() => new Date());
  app.addHook("onRequest", async (request, reply) => {
    if (!request.apiKey) return;
    const verdict = await hitRateLimit(
      deps.pool,
      {
        keyId: request.apiKey.keyId,
        account: request.apiKey.account,
        keyLimit: request.apiKey.rateLimitPerSecond,
      },
      deps.config.limits.rateLimit,
      now(),
    );
    if (!verdict) return;
    reply.header("ratelimit-limit", String(verdict.limit));
    reply.header("ratelimit-remaining", String(verdict.remaining));
    reply.header("ratelimit-reset", String(verdict.resetSeconds));
    if (!verdict.allowed) {
      reply.header("retry-after", String(verdict.resetSeconds));
      throw new MailroomError(
        "rate_limit_exceeded",
        `Too many requests: at most ${verdict.limit} per second. Retry after ${verdict.resetSeconds} s with the same idempotencyKey.`,
        { retryable: true },
      );
    }
  });
}
