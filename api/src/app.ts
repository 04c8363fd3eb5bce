import { MailroomError } from "@mailroom/core/errors";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerFactory } from "fastify";
import type { ApiDeps } from "./deps.ts";
import { registerAuth } from "./plugins/auth.ts";
import { registerErrorHandling, sendError } from "./plugins/errors.ts";
import { registerOpenApi } from "./plugins/openapi.ts";
import { registerTelemetry } from "./plugins/telemetry.ts";
import { domainRoutes } from "./routes/v1/domains/index.ts";
import { emailRoutes } from "./routes/v1/emails/index.ts";
import { sendRoutes } from "./routes/v1/send/index.ts";
import { suppressionRoutes } from "./routes/v1/suppressions/index.ts";
import { templateRoutes } from "./routes/v1/templates/index.ts";
import { webhookRoutes } from "./routes/v1/webhooks/index.ts";

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
    genReqId: () => crypto.randomUUID(),
    return503OnClosing: true,
    // Domain names and addresses travel in paths (`/v1/domains/:domain`) and may be long.
    routerOptions: { maxParamLength: 320 },
    // Errors Fastify raises before routing (bad URL encoding, …) get the spec's error shape too.
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, new MailroomError("validation_error", `url: ${error.message}`));
    },
    ajv: {
      // Unknown fields are errors, not silently dropped; strings are never coerced into other types.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false },
    },
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  });
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  registerErrorHandling(app);
  registerTelemetry(app, deps);
  registerAuth(app, deps);
  registerOpenApi(app);
  app.register(async (v1) => {
    sendRoutes(v1, deps);
    emailRoutes(v1, deps);
    templateRoutes(v1, deps);
    domainRoutes(v1, deps);
    suppressionRoutes(v1, deps);
    webhookRoutes(v1, deps, { allowedCidrs: deps.config.webhooks.allowedCidrs });
  });
  return app;
}
