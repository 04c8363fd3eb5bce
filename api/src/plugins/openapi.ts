import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { OPERATIONS, TAGS } from "../openapi/operations.ts";
import {
  errorComponent,
  errorResponse,
  noContentResponse,
  RESPONSE_HEADERS,
  withSuccessHeaders,
} from "../openapi/responses.ts";
import { webhookComponents, webhookEvents } from "../openapi/webhooks.ts";
import { domainSchema } from "../routes/v1/domains/schema.ts";
import { emailDetailSchema, emailSummarySchema } from "../routes/v1/emails/schema.ts";
import { batchResultSchema, sendEmailSchema, sendResultSchema } from "../routes/v1/send/schema.ts";
import { suppressionSchema } from "../routes/v1/suppressions/schema.ts";
import {
  renderedTemplateSchema,
  templateSchema,
  templateSummarySchema,
  templateVersionSchema,
} from "../routes/v1/templates/schema.ts";
import { deliveryDetailSchema, deliverySchema, endpointSchema } from "../routes/v1/webhooks/schema.ts";

// Route schemas shown once under components.schemas and referenced wherever a route uses the same object.
const COMPONENTS = new Map<object, string>([
  [sendEmailSchema, "SendRequest"],
  [sendResultSchema, "SendResult"],
  [batchResultSchema, "BatchResult"],
  [emailSummarySchema, "EmailSummary"],
  [emailDetailSchema, "Email"],
  [templateSummarySchema, "TemplateSummary"],
  [templateSchema, "Template"],
  [templateVersionSchema, "TemplateVersion"],
  [renderedTemplateSchema, "RenderedTemplate"],
  [domainSchema, "Domain"],
  [suppressionSchema, "Suppression"],
  [endpointSchema, "WebhookEndpoint"],
  [deliverySchema, "WebhookDelivery"],
  [deliveryDetailSchema, "WebhookDeliveryDetail"],
]);

/** A copy of a route schema in which every shared object is a reference to its component. */
function referenced(value: unknown, root = true): unknown {
  if (typeof value !== "object" || value === null) return value;
  const name = root ? undefined : COMPONENTS.get(value);
  if (name) return { $ref: `${name}#` };
  if (Array.isArray(value)) return value.map((item) => referenced(item, false));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, referenced(v, false)]));
}

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown>; hide?: boolean };

/**
 * The documented form of one route: its entry of OPERATIONS, every response status and its headers, and the
 * scope its key needs as the role of its security requirement (OpenAPI 3.1 allows roles for any scheme;
 * none for a route any valid key may call).
 */
function documented(
  method: string,
  url: string,
  schema: RouteSchema | undefined,
  scope: string | undefined,
): RouteSchema | undefined {
  const key = `${method} ${url}`;
  const doc = OPERATIONS[key];
  if (!schema || schema.hide || !doc) return schema;
  const responses: Record<string, unknown> = {};
  for (const [status, body] of Object.entries(schema.response ?? {})) {
    if (/^2\d\d$/.test(status)) responses[status] = withSuccessHeaders(status, referenced(body, false));
  }
  if (doc.noContent) responses["204"] = noContentResponse;
  const statuses = [400, 401, 403, 429, 500, 503, ...doc.errors];
  if (schema.body) statuses.push(413, 415);
  for (const status of [...new Set(statuses)].sort()) responses[String(status)] = errorResponse(status);
  const body =
    key === "POST /v1/send/batch"
      ? { type: "array", minItems: 1, maxItems: 100, items: sendEmailSchema }
      : schema.body;
  return referenced({
    ...schema,
    ...(body ? { body } : {}),
    operationId: doc.operationId,
    tags: [doc.tag],
    ...(scope ? { security: [{ bearer: scope === "any" ? [] : [scope] }] } : {}),
    summary: schema.summary ?? doc.summary,
    description: schema.description ?? schema.summary ?? doc.summary,
    response: responses,
  }) as RouteSchema;
}

/**
 * A body whose schema allows `null` may be left out (Fastify then validates `null`): @fastify/swagger marks
 * every request body required, which would make generated clients send one.
 */
function optionalNullableBodies(document: Record<string, unknown>): void {
  const paths = document.paths as Record<string, Record<string, { requestBody?: Record<string, unknown> }>>;
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    const content = operation.requestBody?.content as
      | Record<string, { schema?: { type?: unknown } }>
      | undefined;
    const type = content?.["application/json"]?.schema?.type;
    if (operation.requestBody && Array.isArray(type) && type.includes("null"))
      operation.requestBody.required = false;
  }
}

/** Replaces each inline response header with a reference to components.headers. */
function referenceHeaders(document: Record<string, unknown>): void {
  const paths = document.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  for (const methods of Object.values(paths)) {
    for (const operation of Object.values(methods)) {
      for (const response of Object.values(operation.responses ?? {})) {
        const headers = (response as { headers?: Record<string, unknown> }).headers;
        if (!headers) continue;
        for (const name of Object.keys(headers)) {
          if (name in RESPONSE_HEADERS) headers[name] = { $ref: `#/components/headers/${name}` };
        }
      }
    }
  }
}

/**
 * The OpenAPI 3.1 document, generated from the route schemas (which also validate and serialise) and from
 * OPERATIONS, served without a key at `GET /v1/openapi.json` and committed as docs/openapi.json (with a
 * typed client generated from it). Registered on the root instance, before the routes it describes: inside
 * a plugin of its own, the swagger plugin would only see that plugin's routes.
 */
export function registerOpenApi(app: FastifyInstance): void {
  app.addSchema({ $id: "Error", ...errorComponent });
  for (const [schema, name] of COMPONENTS) app.addSchema({ $id: name, ...(referenced(schema) as object) });
  app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Mailroom API",
        version: "1.0.0",
        description:
          "Self-hosted transactional email. Every route needs `Authorization: Bearer mrk_<keyId>_<secret>` with the scope its tag names; bodies are JSON.",
        contact: { name: "Mailroom maintainers" },
      },
      // Relative: the API that serves this document (https://localhost:8443 under `make run`).
      servers: [{ url: "/", description: "The Mailroom API that serves this document" }],
      tags: [...TAGS],
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "mrk_<keyId>_<secret>" } },
      },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
      const scope = (route.config as { scope?: string } | undefined)?.scope;
      return { schema: documented(method, url, schema as RouteSchema, scope) as never, url };
    },
    transformObject: (documentObject) => {
      const document = (documentObject as { openapiObject: Record<string, unknown> }).openapiObject;
      referenceHeaders(document);
      optionalNullableBodies(document);
      const components = document.components as Record<string, Record<string, unknown>>;
      components.headers = { ...RESPONSE_HEADERS };
      components.schemas = { ...components.schemas, ...webhookComponents };
      return { ...document, webhooks: webhookEvents } as never;
    },
  });
  app.get("/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
