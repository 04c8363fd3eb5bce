import type { AccountRecord } from "@mailroom/core/accounts";
import { MailroomError } from "@mailroom/core/errors";
import {
  type ApiKeyRecord,
  checkPersonSession,
  createRequestAuthenticator,
  requireScope,
  type Scope,
  touchKeyLastUsed,
} from "@mailroom/core/keys";
import type { RateLimitVerdict } from "@mailroom/core/limits";
import { recheckPerson } from "@mailroom/core/oidc";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../deps.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The scope a route needs; `any` asks only for a valid key (the key's own description); routes without
     * one are public (the OpenAPI document, the console's static files).
     */
    scope?: Scope | "any";
  }
  interface FastifyRequest {
    apiKey: ApiKeyRecord;
    /** The key's account's settings and state, read by the authentication statement itself. */
    account: AccountRecord;
  }
}

/**
 * The quotas a request counts against, as draft-ietf-httpapi-ratelimit-headers-10's `RateLimit-Policy`
 * (a Structured Fields list): `"key";q=500;w=1, "account";q=2000;w=1`.
 */
function rateLimitPolicyField(verdict: RateLimitVerdict): string {
  return verdict.quotas.map((quota) => `"${quota.policy}";q=${quota.limit};w=1`).join(", ");
}

/** The quota closest to running out, as the draft's `RateLimit`: `"key";r=499;t=1`. */
function rateLimitField(verdict: RateLimitVerdict): string {
  return `"${verdict.policy}";r=${verdict.remaining};t=${verdict.resetSeconds}`;
}

/**
 * Bearer-key authentication, rate limits and scope checks, before the body is even parsed, in one statement
 * that concurrent requests share: the key is read from Postgres for every request (no cache can outlive a
 * revoke) and the request is counted against the key's and account's windows only once the key is proven.
 * Every authenticated answer carries `RateLimit-Policy` and `RateLimit` (see `rateLimitField`); over a limit
 * it is 429 `rate_limit_exceeded` with `Retry-After`.
 * last_used_at is written about once an hour, not per request.
 */
export function registerAuth(app: FastifyInstance, deps: ApiDeps): void {
  const now = deps.now ?? (() => new Date());
  const authenticate = createRequestAuthenticator(deps.pool, deps.config.limits.rateLimit);
  app.decorateRequest("apiKey", undefined as unknown as ApiKeyRecord);
  app.decorateRequest("account", undefined as unknown as AccountRecord);
  app.addHook("onRequest", async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const at = now();
    const { key, account, rateLimit } = await authenticate(request.headers.authorization, at);
    // A person's key (ADR 0063) is also a session, revoked once idle too long.
    await checkPersonSession(deps.pool, key, deps.config.oidc.idleTimeoutSeconds, at);
    // …and its person's groups are asked again of the provider every few minutes.
    await recheckPerson(deps.pool, deps.config.oidc, deps.kek, key, at);
    request.log = request.log.child({ keyId: key.keyId, account: key.account });
    request.apiKey = key;
    request.account = account;
    if (rateLimit) {
      reply.header("ratelimit-policy", rateLimitPolicyField(rateLimit));
      reply.header("ratelimit", rateLimitField(rateLimit));
      if (!rateLimit.allowed) {
        reply.header("retry-after", String(rateLimit.resetSeconds));
        throw new MailroomError(
          "rate_limit_exceeded",
          `Too many requests: at most ${rateLimit.limit} per second. Retry after ${rateLimit.resetSeconds} s ` +
            "with the same idempotencyKey.",
          { retryable: true },
        );
      }
    }
    if (scope !== "any") requireScope(key, scope);
    await touchKeyLastUsed(deps.pool, key, at);
  });
}
