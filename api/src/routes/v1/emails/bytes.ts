import { getEmailAttachment, getEmailRaw } from "@mailroom/core/emails";
import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { errorResponses as errors } from "../../../schemas.ts";

const params = {
  type: "object",
  required: ["id", "index"],
  properties: {
    id: { type: "string", maxLength: 64, description: "The email's id" },
    index: {
      type: "string",
      pattern: "^[0-9]{1,3}$",
      description: "The attachment's index in the email's list",
    },
  },
} as const;

// Bytes, not JSON: the 200 is documented as binary content (Fastify sends a Buffer as is).
const binary = (description: string, type: string) => ({
  description,
  content: { [type]: { schema: { type: "string", format: "binary" } } },
});

/**
 * An email's attachments and, for SMTP submissions, its message as submitted (scope `send`), for the console's
 * downloads and its inline `cid:` images (issue 33). Always served as downloads, never rendered on this origin.
 */
export function emailBytesRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const reads = readsOf(deps);
  const config = { scope: "send" as const };

  app.get<{ Params: { id: string; index: string } }>(
    "/v1/emails/:id/attachments/:index",
    {
      config,
      schema: {
        summary: "Download one attachment of an email",
        params,
        response: { 200: binary("The attachment's bytes", "application/octet-stream"), ...errors },
      },
    },
    async (request, reply) => {
      const { id, index } = request.params;
      const found = await reads.read((db) =>
        getEmailAttachment(db, request.apiKey.account, id, Number(index)),
      );
      if (!found) throw new MailroomError("not_found", `No attachment ${index} in email ${id}.`);
      return reply
        .type("application/octet-stream")
        .header("content-disposition", `attachment; filename*=UTF-8''${encodeURIComponent(found.filename)}`)
        .header("x-content-type-options", "nosniff")
        .send(found.content);
    },
  );

  app.get<{ Params: { id: string } }>(
    "/v1/emails/:id/raw",
    {
      config,
      schema: {
        summary: "The message as submitted over SMTP, as message/rfc822",
        params: { ...params, required: ["id"], properties: { id: params.properties.id } },
        response: { 200: binary("The message as submitted", "message/rfc822"), ...errors },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const raw = await reads.read((db) => getEmailRaw(db, request.apiKey.account, id));
      if (!raw)
        throw new MailroomError(
          "not_found",
          `No submitted message kept for email ${id} (only SMTP submissions are kept).`,
        );
      return reply
        .type("message/rfc822")
        .header("content-disposition", `attachment; filename="${id}.eml"`)
        .header("x-content-type-options", "nosniff")
        .send(raw);
    },
  );
}
