import { MailroomError } from "@mailroom/core/errors";
import { capturesMail } from "@mailroom/core/sandbox";
import { createEmailSender, type SendContext } from "@mailroom/core/sending";
import { injectTraceContext, withChildSpan } from "@mailroom/core/telemetry";
import type { Span } from "@opentelemetry/api";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ApiDeps } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors } from "../../../schemas.ts";
import { validateBatch } from "./batch.ts";
import { createBatchGate } from "./batch-gate.ts";
import {
  batchBodySchema,
  batchHeadersSchema,
  batchResultSchema,
  sendEmailSchema,
  sendHeadersSchema,
  sendResultSchema,
} from "./schema.ts";

// The jobs continue the trace from the request's `accept` span: request → accept → deliver → SMTP.
const contextOf = (request: FastifyRequest, accept: Span, now: Date): SendContext => ({
  account: request.apiKey.account,
  policy: request.account,
  apiKeyId: request.apiKey.keyId,
  trace: injectTraceContext(accept),
  now,
  source: "api",
  sandbox: capturesMail(request.apiKey, request.account),
});

/**
 * POST /v1/send and /v1/send/batch. A single send rides the group-commit queue; a batch commits all its
 * accepted items in one transaction of its own. Either way the answer is sent after the commit.
 */
export function sendRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const clock = deps.now ?? (() => new Date());
  const sender = createEmailSender({
    pool: deps.pool,
    hostname: deps.config.smtp.hostname,
    allowUnverifiedFrom: deps.config.sending.allowUnverifiedFrom,
    simulatorDomain: deps.config.simulator.domain,
    onAccepted: (r) => deps.metrics.emailsAccepted.inc({ result: r.status }),
  });

  app.post(
    "/v1/send",
    {
      config: { scope: "send" },
      schema: {
        summary: "Send one email",
        body: sendEmailSchema,
        headers: sendHeadersSchema,
        response: { 200: sendResultSchema, ...errors },
      },
    },
    async (request) => {
      const result = await withChildSpan("accept", request.span, (span) =>
        sender.send(contextOf(request, span, clock()), request.body, request.headers["idempotency-key"]),
      );
      request.logFields = { emailId: result.messageId, status: result.status };
      return result;
    },
  );

  app.post(
    "/v1/send/batch",
    {
      config: { scope: "send" },
      schema: {
        summary: "Send up to 100 emails; results in request order",
        body: batchBodySchema,
        headers: batchHeadersSchema,
        response: { 200: batchResultSchema, ...errors },
      },
      // After authentication (onRequest), before the body is read.
      preParsing: createBatchGate(deps.config.api.batchConcurrency, deps.metrics.batchRequests),
    },
    async (request) => {
      if (request.headers["idempotency-key"] !== undefined) {
        throw new MailroomError(
          "validation_error",
          "Idempotency-Key: give an idempotencyKey per email in a batch",
        );
      }
      // Node joins a repeated custom header into one string, which the schema's enum then refuses.
      const mode = request.headers["x-batch-validation"] ?? "strict";
      return withChildSpan("accept", request.span, async (span) => ({
        data: await sender.sendBatch(
          contextOf(request, span, clock()),
          [...validateBatch(request.body)],
          mode,
        ),
      }));
    },
  );
}
