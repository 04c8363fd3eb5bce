import {
  clearInbox,
  listInbox,
  readInboxAttachment,
  readInboxMessage,
  readInboxRaw,
} from "@mailroom/core/dev-inbox";
import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import { type ApiTypeProvider, errorResponses as errors, noContentResponses } from "../../../schemas.ts";
import {
  attachmentParamsSchema,
  inboxListSchema,
  inboxMessageSchema,
  listQuerySchema,
  messageParamsSchema,
} from "./schema.ts";

const notFound = (id: string) => new MailroomError("not_found", `No captured message ${id}.`);

/**
 * /v1/dev-inbox (scope `send`): the mail a local run captured instead of delivering, for the console's dev
 * inbox, each key seeing its own account's mail only (issue 26). Registered only by `mailroom run` (`devInboxDir`); anywhere else the routes do not exist (404).
 */
export function devInboxRoutes(parent: FastifyInstance, dir: string): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const config = { scope: "send" as const };

  app.get(
    "/v1/dev-inbox/messages",
    {
      config,
      schema: {
        summary: "List captured messages, newest first (local runs only)",
        querystring: listQuerySchema,
        response: { 200: inboxListSchema, ...errors },
      },
    },
    async (request) => ({
      data: await listInbox(dir, request.apiKey.account, request.query.limit ?? 50),
    }),
  );

  app.get(
    "/v1/dev-inbox/messages/:id",
    {
      config,
      schema: {
        summary: "Read one captured message: headers, HTML, text, attachments (local runs only)",
        params: messageParamsSchema,
        response: { 200: inboxMessageSchema, ...errors },
      },
    },
    async (request) => {
      const message = await readInboxMessage(dir, request.apiKey.account, request.params.id);
      if (!message) throw notFound(request.params.id);
      return message;
    },
  );

  // The raw message and attachments are bytes, not JSON: their routes are typed by hand, not by a schema.
  parent.get<{ Params: { id: string } }>(
    "/v1/dev-inbox/messages/:id/raw",
    {
      config,
      schema: {
        summary: "The captured message exactly as received, as message/rfc822 (local runs only)",
        params: messageParamsSchema,
        response: errors,
      },
    },
    async (request, reply) => {
      const raw = await readInboxRaw(dir, request.apiKey.account, request.params.id);
      if (!raw) throw notFound(request.params.id);
      return reply
        .type("message/rfc822")
        .header("content-disposition", `attachment; filename="${request.params.id}.eml"`)
        .header("x-content-type-options", "nosniff")
        .send(raw);
    },
  );

  parent.get<{ Params: { id: string; index: string } }>(
    "/v1/dev-inbox/messages/:id/attachments/:index",
    {
      config,
      schema: {
        summary: "Download one attachment of a captured message (local runs only)",
        params: attachmentParamsSchema,
        response: errors,
      },
    },
    async (request, reply) => {
      const { id, index } = request.params;
      const attachment = await readInboxAttachment(dir, request.apiKey.account, id, Number(index));
      if (!attachment)
        throw new MailroomError("not_found", `No attachment ${index} in captured message ${id}.`);
      // Always a download, never rendered on this origin, whatever type the sender claimed.
      return reply
        .type("application/octet-stream")
        .header(
          "content-disposition",
          `attachment; filename*=UTF-8''${encodeURIComponent(attachment.filename)}`,
        )
        .header("x-content-type-options", "nosniff")
        .send(attachment.content);
    },
  );

  app.delete(
    "/v1/dev-inbox/messages",
    {
      config,
      schema: { summary: "Delete every captured message (local runs only)", response: noContentResponses },
    },
    async (request, reply) => {
      const deleted = await clearInbox(dir, request.apiKey.account);
      request.log.info({ deleted }, "dev inbox cleared");
      return reply.code(204).send(null);
    },
  );
}
