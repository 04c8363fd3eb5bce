import { isUuid } from "@mailroom/core/db";
import {
  cancelEmail,
  getEmailDetail,
  listEmails,
  normalizeEmailFilter,
  rescheduleEmail,
  validateScheduledAt,
} from "@mailroom/core/emails";
import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors } from "../../../schemas.ts";
import { emailBytesRoutes } from "./bytes.ts";
import {
  emailDetailSchema,
  emailPageSchema,
  emailSummarySchema,
  idParamsSchema,
  listQuerySchema,
  rescheduleBodySchema,
} from "./schema.ts";

const notFound = (id: string) => new MailroomError("not_found", `No email ${id}.`);

/** The path's email id, or 404: an id that is not a UUID names no email. */
function emailId(id: string): string {
  if (!isUuid(id)) throw notFound(id);
  return id;
}

/** The email log (scope `send`): list with filters and a cursor, read one with its timeline, cancel, reschedule. */
export function emailRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const config = { scope: "send" as const };
  const reads = readsOf(deps);
  emailBytesRoutes(parent, deps);

  app.get(
    "/v1/emails",
    {
      config,
      schema: {
        summary: "List emails, newest first",
        querystring: listQuerySchema,
        response: { 200: emailPageSchema, ...errors },
      },
    },
    async (request) =>
      reads.read((db) => listEmails(db, request.apiKey.account, normalizeEmailFilter(request.query))),
  );

  app.get(
    "/v1/emails/:id",
    {
      config,
      schema: {
        summary: "Read one email and its timeline",
        params: idParamsSchema,
        response: { 200: emailDetailSchema, ...errors },
      },
    },
    async (request) => {
      const email = await reads.read((db) => getEmailDetail(db, request.apiKey.account, request.params.id));
      if (!email) throw notFound(request.params.id);
      return email;
    },
  );

  app.post(
    "/v1/emails/:id/cancel",
    {
      config,
      schema: {
        summary: "Cancel an email that has not left",
        params: idParamsSchema,
        response: { 200: emailSummarySchema, ...errors },
      },
    },
    async (request) =>
      cancelEmail(deps.pool, request.apiKey.account, emailId(request.params.id), auditContextOf(request)),
  );

  app.patch(
    "/v1/emails/:id",
    {
      config,
      schema: {
        summary: "Reschedule an email that has not left",
        params: idParamsSchema,
        body: rescheduleBodySchema,
        response: { 200: emailSummarySchema, ...errors },
      },
    },
    async (request) => {
      const id = emailId(request.params.id);
      const at = validateScheduledAt(request.body.scheduledAt, new Date()) as Date;
      return rescheduleEmail(deps.pool, request.apiKey.account, id, at, auditContextOf(request));
    },
  );
}
