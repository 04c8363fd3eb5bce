import { MailroomError } from "@mailroom/core/errors";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerFactory,
  LogController,
} from "fastify";
import type { ApiDeps } from "./deps.ts";
import { registerAuth } from "./plugins/auth.ts";
import { consoleAssets, registerConsole } from "./plugins/console.ts";
import { answerClientError, registerErrorHandling, sendError } from "./plugins/errors.ts";
import { registerJsonBody } from "./plugins/json-body.ts";
import { registerOpenApi } from "./plugins/openapi.ts";
import { registerTelemetry } from "./plugins/telemetry.ts";
import { storableStringsValidator } from "./plugins/validation.ts";
import { oidcRoutes } from "./routes/auth/oidc.ts";
import { accountRoutes } from "./routes/v1/account/index.ts";
import { auditRoutes } from "./routes/v1/audit/index.ts";
import { devInboxRoutes } from "./routes/v1/dev-inbox/index.ts";
import { domainRoutes } from "./routes/v1/domains/index.ts";
import { emailRoutes } from "./routes/v1/emails/index.ts";
import { keyRoutes } from "./routes/v1/key/index.ts";
import { keysRoutes } from "./routes/v1/keys/index.ts";
import { sendRoutes } from "./routes/v1/send/index.ts";
import { statsRoutes } from "./routes/v1/stats/index.ts";
import { suppressionRoutes } from "./routes/v1/suppressions/index.ts";
import { templateRoutes } from "./routes/v1/templates/index.ts";
import { webhookRoutes } from "./routes/v1/webhooks/index.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Fields a route adds to the request's one access-log line (e.g. the accepted email's id). */
    logFields?: Record<string, unknown>;
  }
}

/**
 * One access-log line per request, when it completes, instead of Fastify's two (incoming, completed) plus a
 * route's own: method, URL, status, time and what the route added (`request.logFields`), on the request's
 * logger, which carries the key id once the key is known. Serialising log lines was a visible share of a
 * send's CPU.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const fields = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...request.logFields,
    };
    if (error) request.log.error({ ...fields, err: error }, "request errored");
    else request.log.info(fields, "request completed");
  }
}

export interface BuildAppOptions {
  /** Supplies the HTTPS server (see server.ts); tests using `inject` may leave it out. */
  serverFactory?: FastifyServerFactory;
}

/** The API as a Fastify instance: plugins, then routes by resource. Listening is server.ts's job. */
export function buildApp(deps: ApiDeps, options: BuildAppOptions = {}): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.config.api.bodyLimitBytes,
    requestIdHeader: false,
    logController: new AccessLog(),
    genReqId: () => crypto.randomUUID(),
    return503OnClosing: true,
    // Domain names and addresses travel in paths (`/v1/domains/:domain`) and may be long.
    routerOptions: { maxParamLength: 320 },
    // Errors Fastify raises before routing (bad URL encoding, …) get the spec's error shape too.
    // Node's refusals before a request exists (bad framing, headers too large) in the spec's shape too.
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, new MailroomError("validation_error", `url: ${error.message}`));
    },
    ajv: {
      // Unknown fields are errors, not silently dropped; a body's strings are never coerced into other types
      // (the query string's and the path's are, see validation.ts).
      customOptions: {
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: true,
        allErrors: false,
        // Errors carry the failing schema, so a pattern's own description can word the message.
        verbose: true,
      },
    },
    // Every body, query and path string is checked for what Postgres cannot store, once, as schemas compile;
    // query and path values are coerced to their declared types, bodies never (validation.ts).
    schemaController: { compilersFactory: { buildValidator: storableStringsValidator() } },
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  });
  app.decorateRequest("logFields", undefined);
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
    // The API is served over HTTPS only (server.ts): browsers should never try plain HTTP for it again.
    reply.header("strict-transport-security", "max-age=31536000");
  });

  registerErrorHandling(app);
  registerJsonBody(app);
  registerTelemetry(app, deps);
  registerAuth(app, deps);
  registerOpenApi(app);
  registerConsole(app, consoleAssets);
  oidcRoutes(app, deps);
  app.register(async (v1) => {
    keyRoutes(v1);
    keysRoutes(v1, deps);
    accountRoutes(v1, deps);
    sendRoutes(v1, deps);
    emailRoutes(v1, deps);
    statsRoutes(v1, deps);
    templateRoutes(v1, deps);
    domainRoutes(v1, deps);
    suppressionRoutes(v1, deps);
    webhookRoutes(v1, deps, { allowedCidrs: deps.config.webhooks.allowedCidrs });
    devInboxRoutes(v1, deps);
    auditRoutes(v1, deps);
  });
  return app;
}
