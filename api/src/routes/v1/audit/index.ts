import { AUDIT_ACTIONS, listAuditEvents, normalizeAuditFilter } from "@mailroom/core/audit";
import type { FastifyInstance } from "fastify";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors } from "../../../schemas.ts";
import { auditActionsSchema, auditPageSchema, auditQuerySchema } from "./schema.ts";

/**
 * `GET /v1/audit` (scope `audit`, ADR 0062): the account's audit trail, newest first, filtered by action,
 * actor and time, with the email log's cursor (the last id seen as `after`); `GET /v1/audit/actions`, the
 * actions it records.
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

  // The filter's choices, so a client (the console) keeps no copy of core's AUDIT_ACTIONS (issue 33).
  app.get(
    "/v1/audit/actions",
    {
      config: { scope: "audit" },
      schema: {
        summary: "List the actions the audit trail records (the values of the list's `action` filter)",
        response: { 200: auditActionsSchema, ...errors },
      },
    },
    async () => ({ data: [...AUDIT_ACTIONS] }),
  );
}
