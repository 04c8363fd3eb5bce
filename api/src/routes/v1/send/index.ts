import { withTransaction } from "@mailroom/core/db";
import { acceptEmails, normalizeSendRequest, type SendRequestBody } from "@mailroom/core/emails";
import { MailroomError } from "@mailroom/core/errors";
import { injectTraceContext } from "@mailroom/core/telemetry";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../../../deps.ts";
import { errorSchema, sendBodySchema, sendResultSchema } from "./schema.ts";

/** POST /v1/send: validate, then one transaction writes the email, its idempotency record and its job. */
export function sendRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.post<{ Body: SendRequestBody; Headers: { "idempotency-key"?: string } }>(
    "/v1/send",
    {
      config: { scope: "send" },
      schema: {
        body: sendBodySchema,
        response: { 200: sendResultSchema, "4xx": errorSchema, "5xx": errorSchema },
      },
    },
    async (request) => {
      const item = normalizeSendRequest(request.body, request.headers["idempotency-key"]);
      const [result] = await withTransaction(deps.pool, (client) =>
        acceptEmails(
          client,
          {
            account: request.apiKey.account,
            apiKeyId: request.apiKey.keyId,
            hostname: deps.config.smtp.hostname,
            trace: injectTraceContext(request.span),
          },
          [item],
        ),
      );
      if (!result) throw new Error("acceptEmails returned no result");
      if (result.status === "idempotency_key_mismatch") {
        throw new MailroomError(
          "idempotency_key_mismatch",
          "This idempotencyKey was already used with a different request body.",
        );
      }
      deps.metrics.emailsAccepted.inc({ result: result.status });
      request.log.info({ emailId: result.messageId, status: result.status }, "email accepted");
      return result;
    },
  );
}
