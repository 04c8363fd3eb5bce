import { normalizeStatsQuery, readStats } from "@mailroom/core/stats";
import type { FastifyInstance } from "fastify";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses } from "../../../schemas.ts";
import { statsQuerySchema, statsSchema } from "./schema.ts";
import { transitRoutes } from "./transit.ts";

/**
 * `GET /v1/stats` (scope `send`, as the log it sums up): the account's sent, delivered, bounced, complained,
 * failed and deferred counts, delivery rate and latency over a period, per bucket and split (issue 33).
 */
export function statsRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const now = deps.now ?? (() => new Date());
  const reads = readsOf(deps);
  app.get(
    "/v1/stats",
    {
      config: { scope: "send" },
      schema: {
        summary: "The account's delivery figures over a period, per hour or day, optionally split",
        querystring: statsQuerySchema,
        response: { 200: statsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const query = normalizeStatsQuery(request.query, now());
      return reads.read((db) => readStats(db, request.apiKey.account, query));
    },
  );
  transitRoutes(parent, deps);
}
