import {
  cancelEmail,
  type EmailStatus,
  getEmail,
  isEmailId,
  listEmails,
  listEvents,
  loadAttachments,
  parseAddress,
  rescheduleEmail,
  validateScheduledAt,
} from "@mailroom/core/emails";
import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../../../deps.ts";
import { errorSchema } from "../send/schema.ts";
import { presentDetail, presentSummary } from "./present.ts";
import {
  emailDetailSchema,
  emailSummarySchema,
  idParamsSchema,
  listQuerySchema,
  rescheduleBodySchema,
} from "./schema.ts";

interface ListQuery {
  limit?: string;
  after?: string;
  status?: EmailStatus;
  to?: string;
  from?: string;
  category?: string;
  tag?: string;
  since?: string;
  until?: string;
}

function time(field: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new MailroomError("validation_error", `${field}: an RFC 3339 time`);
  return at;
}

function address(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseAddress(value);
  if (!parsed) throw new MailroomError("validation_error", `${field}: an email address`);
  return parsed;
}

const notFound = (id: string) => new MailroomError("not_found", `No email ${id}.`);
const errors = { "4xx": errorSchema, "5xx": errorSchema };

/** The email log (scope `send`): list with filters and a cursor, read one with its timeline, cancel, reschedule. */
export function emailRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get<{ Querystring: ListQuery }>(
    "/v1/emails",
    {
      config: { scope: "send" },
      schema: {
        summary: "List emails, newest first",
        querystring: listQuerySchema,
        response: {
          200: {
            type: "object",
            properties: { data: { type: "array", items: emailSummarySchema }, hasMore: { type: "boolean" } },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.after !== undefined && !isEmailId(q.after)) {
        throw new MailroomError("validation_error", "after: the id of an email from the previous page");
      }
      const [tagName, tagValue] = q.tag?.split(":") ?? [];
      const page = await listEmails(deps.pool, request.apiKey.account, {
        limit: q.limit ? Number(q.limit) : 20,
        after: q.after,
        status: q.status,
        to: address("to", q.to),
        from: address("from", q.from),
        category: q.category,
        tag: tagName && tagValue ? { name: tagName, value: tagValue } : undefined,
        since: time("since", q.since),
        until: time("until", q.until),
      });
      return { data: page.data.map(presentSummary), hasMore: page.hasMore };
    },
  );

  app.get<{ Params: { id: string } }>(
    "/v1/emails/:id",
    {
      config: { scope: "send" },
      schema: {
        summary: "Read one email and its timeline",
        params: idParamsSchema,
        response: { 200: emailDetailSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const email = isEmailId(id) ? await getEmail(deps.pool, request.apiKey.account, id) : undefined;
      if (!email) throw notFound(id);
      const [events, attachments] = await Promise.all([
        listEvents(deps.pool, id),
        loadAttachments(deps.pool, id),
      ]);
      return presentDetail(email, events, attachments);
    },
  );

  app.post<{ Params: { id: string } }>(
    "/v1/emails/:id/cancel",
    {
      config: { scope: "send" },
      schema: {
        summary: "Cancel an email that has not left",
        params: idParamsSchema,
        response: { 200: emailSummarySchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!isEmailId(id)) throw notFound(id);
      return presentSummary(await cancelEmail(deps.pool, request.apiKey.account, id));
    },
  );

  app.patch<{ Params: { id: string }; Body: { scheduledAt: string } }>(
    "/v1/emails/:id",
    {
      config: { scope: "send" },
      schema: {
        summary: "Reschedule an email that has not left",
        params: idParamsSchema,
        body: rescheduleBodySchema,
        response: { 200: emailSummarySchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!isEmailId(id)) throw notFound(id);
      const at = validateScheduledAt(request.body.scheduledAt, new Date()) as Date;
      return presentSummary(await rescheduleEmail(deps.pool, request.apiKey.account, id, at));
    },
  );
}
