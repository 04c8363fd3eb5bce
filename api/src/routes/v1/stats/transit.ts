import { normalizeTransitPeriod, readTransit } from "@mailroom/core/transit";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses } from "../../../schemas.ts";
import { transitQuerySchema, transitSchema } from "./transit-schema.ts";

/**
 * `GET /v1/stats/transit` (scope `send`, as the log): per recipient domain the account's mail went to in a
 * period, its TLS sessions, deliveries, bounces, deferrals by reason and last failure, with the current
 * shaping state of the destinations it went to (issue 32 item 6, ADR 0066).
 */
export function transitRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const now = deps.now ?? (() => new Date());
  app.get(
    "/v1/stats/transit",
    {
      config: { scope: "send" },
      schema: {
        summary: "How the account's mail met each receiving domain: TLS, deferrals, shaping",
        querystring: transitQuerySchema,
        response: { 200: transitSchema, ...errorResponses },
      },
    },
    // On the primary: the shaping state is an unlogged table, which a replica does not have.
    async (request) =>
      readTransit(deps.pool, request.apiKey.account, normalizeTransitPeriod(request.query, now())),
  );
}
