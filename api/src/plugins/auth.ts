import {
  type ApiKeyRecord,
  authenticateKey,
  requireScope,
  type Scope,
  touchKeyLastUsed,
} from "@mailroom/core/keys";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../deps.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scope a route needs; routes without one are public (the OpenAPI document). */
    scope?: Scope;
  }
  interface FastifyRequest {
    apiKey: ApiKeyRecord;
  }
}

/**
 * Bearer-key authentication and scope checks, before the body is even parsed. Every request reads the key
 * from Postgres (no cache can outlive a revoke); last_used_at is written about once an hour, not per request.
 */
export function registerAuth(app: FastifyInstance, deps: ApiDeps): void {
  const now = deps.now ?? (() => new Date());
  app.decorateRequest("apiKey", undefined as unknown as ApiKeyRecord);
  app.addHook("onRequest", async (request) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const at = now();
    const key = await authenticateKey(deps.pool, request.headers.authorization, at);
    request.log = request.log.child({ keyId: key.keyId, account: key.account });
    requireScope(key, scope);
    request.apiKey = key;
    await touchKeyLastUsed(deps.pool, key, at);
  });
}
