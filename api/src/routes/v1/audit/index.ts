import { listAuditEvents, normalizeAuditFilter } from "@mailroom/core/audit";
import type { FastifyInstance } from "fastify";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors } from "../../../schemas.ts";
import { auditPageSchema, auditQuerySchema } from "./schema.ts";

/**
 * `GET /v1/audit` (scope `audit`, ADR 0062): the account's audit trail, newest first, filtered by action,
 * actor and time, with the email log's cursor (the last id seen as `after`).
 */
export function auditRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const reads = readsOf(deps);
  app.get(
    "/v1/audit",
    {
      config: { scope: "audit" },
      schema: {
        summary: "List the account's audit trail: who changed what, when and from where, newest first",
        querystring: auditQuerySchema,
        response: { 200: auditPageSchema, ...errors },
      },
    },
    async (request) =>
      reads.read((db) => listAuditEvents(db, request.apiKey.account, normalizeAuditFilter(request.query))),
  );
}
