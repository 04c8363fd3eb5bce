import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";

/**
 * The OpenAPI 3.1 document, generated from the route schemas (which also validate and serialise), served
 * without a key at `GET /v1/openapi.json`. Registered on the root instance, before the routes it describes:
 * inside a plugin of its own, the swagger plugin would only see that plugin's routes.
 */
export function registerOpenApi(app: FastifyInstance): void {
  app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Mailroom API",
        version: "1.0.0",
        description: "Self-hosted transactional email. Every route needs `Authorization: Bearer mrk_…`.",
      },
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "mrk_<keyId>_<secret>" } },
      },
      security: [{ bearer: [] }],
    },
  });
  app.get("/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
