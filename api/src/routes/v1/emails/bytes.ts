import { composeAccountEmail } from "@mailroom/core/compose";
import { getEmailAttachment } from "@mailroom/core/emails";
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

const RAW_DESCRIPTION =
  "The message the deliver task builds for this email, from the same composer, whatever the email's " +
  "status (a scheduled or queued email as its first attempt will build it): the same header fields " +
  "(Message-ID, Date, X-Mailroom-Category, custom headers such as List-Unsubscribe), MIME structure, " +
  "boundaries and bodies as every attempt hands over. An SMTP submission is its client's message with the " +
  "Message-ID and Date Mailroom adds when the client left them out. What the delivered copy has and this " +
  "one lacks: the DKIM-Signature fields, made at each handover with the domain's current key " +
  "(`X-Mailroom-Dkim: omitted` says so), the Received and Return-Path fields the receiving servers add, " +
  "and, for a next hop without 8BITMIME, the 7-bit form.";

// Bytes, not JSON: the 200 is documented as binary content (Fastify sends a Buffer as is).
const binary = (description: string, type: string) => ({
  description,
  content: { [type]: { schema: { type: "string", format: "binary" } } },
});

/**
 * An email's attachments and its message as built for delivery (scope `send`), for the console's downloads
 * and its inline `cid:` images (issue 33). Always served as downloads, never rendered on this origin.
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
        summary: "The email's message as built for delivery, without DKIM signature, as message/rfc822",
        description: RAW_DESCRIPTION,
        params: { ...params, required: ["id"], properties: { id: params.properties.id } },
        response: { 200: binary("The message as built for delivery", "message/rfc822"), ...errors },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const raw = await reads.read((db) => composeAccountEmail(db, request.apiKey.account, id));
      if (!raw) throw new MailroomError("not_found", `No email ${id}.`);
      return (
        reply
          .type("message/rfc822")
          .header("content-disposition", `attachment; filename="${id}.eml"`)
          .header("x-content-type-options", "nosniff")
          // Says in the answer itself what the bytes lack beside the delivered copy (ADR 0071).
          .header("x-mailroom-dkim", "omitted")
          .send(raw)
      );
    },
  );
}
