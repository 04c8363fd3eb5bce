import {
  clearInbox,
  readInboxAttachment,
  readInboxMessage,
  readInboxRaw,
  waitForInbox,
} from "@mailroom/core/dev-inbox";
import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors, noContentResponses } from "../../../schemas.ts";
import { chaosRoutes } from "./chaos.ts";
import {
  attachmentParamsSchema,
  filterQuerySchema,
  inboxListSchema,
  inboxMessageSchema,
  listQuerySchema,
  messageParamsSchema,
} from "./schema.ts";

const notFound = (id: string) => new MailroomError("not_found", `No captured message ${id}.`);

/**
 * /v1/dev-inbox (scope `send`): each account's captured mail (sandbox keys and accounts in every install,
 * everything in `mailroom run`), for the console's inbox and for the CI of users' apps: each key sees its
 * own account's mail only (issue 26, issue 30). Reads run on the primary, where the capture commits, so a
 * wait sees a message as soon as it is captured.
 */
export function devInboxRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const db = deps.pool;
  chaosRoutes(parent, deps);
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const config = { scope: "send" as const };

  app.get(
    "/v1/dev-inbox/messages",
    {
      config,
      schema: {
        summary:
          "List the account's captured messages, newest first; with `wait`, answer as soon as one matches",
        description:
          "Filters: `to` (an envelope recipient, any case) and `subject` (contains, any case). With `wait` " +
          "(seconds, at most 30) the call is a long poll: it answers as soon as at least one message matches, " +
          "else with an empty list when the time is up.",
        querystring: listQuerySchema,
        response: { 200: inboxListSchema, ...errors },
      },
    },
    async (request) => {
      const { limit, wait, to, subject } = request.query;
      const closed = new AbortController();
      request.raw.once("close", () => closed.abort());
      return {
        data: await waitForInbox(db, request.apiKey.account, {
          filter: { to, subject },
          limit: limit ?? 50,
          waitSeconds: wait ?? 0,
          signal: closed.signal,
        }),
      };
    },
  );

  app.get(
    "/v1/dev-inbox/messages/:id",
    {
      config,
      schema: {
        summary: "Read one captured message: headers, HTML, text, attachments",
        params: messageParamsSchema,
        response: { 200: inboxMessageSchema, ...errors },
      },
    },
    async (request) => {
      const message = await readInboxMessage(db, request.apiKey.account, request.params.id);
      if (!message) throw notFound(request.params.id);
      return message;
    },
  );

  // The raw message and attachments are bytes, not JSON: their routes are typed by hand, and their 200 is
  // documented as binary content (Fastify sends a Buffer as is, without the serializer).
  const bytes = (description: string, type: string) => ({
    description,
    content: { [type]: { schema: { type: "string", format: "binary" } } },
  });
  parent.get<{ Params: { id: string } }>(
    "/v1/dev-inbox/messages/:id/raw",
    {
      config,
      schema: {
        summary: "The captured message exactly as received, as message/rfc822 ",
        params: messageParamsSchema,
        response: { 200: bytes("The message as captured", "message/rfc822"), ...errors },
      },
    },
    async (request, reply) => {
      const raw = await readInboxRaw(db, request.apiKey.account, request.params.id);
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
        summary: "Download one attachment of a captured message ",
        params: attachmentParamsSchema,
        response: { 200: bytes("The attachment's bytes", "application/octet-stream"), ...errors },
      },
    },
    async (request, reply) => {
      const { id, index } = request.params;
      const attachment = await readInboxAttachment(db, request.apiKey.account, id, Number(index));
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
      schema: {
        summary: "Delete the account's captured messages: those matching `to` and `subject`, or all",
        querystring: filterQuerySchema,
        response: noContentResponses,
      },
    },
    async (request, reply) => {
      const deleted = await clearInbox(db, request.apiKey.account, request.query);
      request.log.info({ deleted }, "dev inbox cleared");
      return reply.code(204).send(null);
    },
  );
}
