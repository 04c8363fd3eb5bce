import { MailroomError } from "@mailroom/core/errors";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  getTemplateVersion,
  listTemplates,
  renderTemplateForSend,
  updateTemplate,
} from "@mailroom/core/templates";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors, noContentResponses } from "../../../schemas.ts";
import {
  createTemplateBodySchema,
  listQuerySchema,
  renderedTemplateSchema,
  renderTemplateBodySchema,
  templateListSchema,
  templateParamsSchema,
  templateSchema,
  templateVersionSchema,
  updateTemplateBodySchema,
  versionParamsSchema,
} from "./schema.ts";

const notFound = () => new MailroomError("not_found", "No template with this id.");

/** /v1/templates: saved Handlebars templates, versioned on every content change. Scope `templates`. */
export function templateRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const reads = readsOf(deps);
  const config = { scope: "templates" as const };

  app.post(
    "/v1/templates",
    { config, schema: { body: createTemplateBodySchema, response: { 201: templateSchema, ...errors } } },
    async (request, reply) => {
      const template = await createTemplate(deps.pool, {
        ...request.body,
        account: request.apiKey.account,
        managedBy: "api",
        by: auditContextOf(request),
      });
      request.log.info({ templateId: template.id }, "template created");
      return reply.code(201).send(template);
    },
  );

  app.get(
    "/v1/templates",
    { config, schema: { querystring: listQuerySchema, response: { 200: templateListSchema, ...errors } } },
    async (request) => {
      const { limit, after } = request.query;
      return reads.read((db) => listTemplates(db, request.apiKey.account, { after, limit }));
    },
  );

  app.get(
    "/v1/templates/:id",
    { config, schema: { params: templateParamsSchema, response: { 200: templateSchema, ...errors } } },
    async (request) => {
      const template = await reads.read((db) => getTemplate(db, request.apiKey.account, request.params.id));
      if (!template) throw notFound();
      return template;
    },
  );

  app.get(
    "/v1/templates/:id/versions/:version",
    { config, schema: { params: versionParamsSchema, response: { 200: templateVersionSchema, ...errors } } },
    async (request) => {
      const { id, version } = request.params;
      const found = await reads.read((db) => getTemplateVersion(db, request.apiKey.account, id, version));
      if (!found) throw new MailroomError("not_found", `No version ${version} of a template with this id.`);
      return found;
    },
  );

  app.patch(
    "/v1/templates/:id",
    {
      config,
      schema: {
        params: templateParamsSchema,
        body: updateTemplateBodySchema,
        response: { 200: templateSchema, ...errors },
      },
    },
    async (request) => {
      const by = auditContextOf(request);
      const target = { account: request.apiKey.account, id: request.params.id, actor: "api" as const, by };
      const template = await updateTemplate(deps.pool, target, request.body);
      request.log.info({ templateId: template.id, version: template.version }, "template updated");
      return template;
    },
  );

  app.delete(
    "/v1/templates/:id",
    { config, schema: { params: templateParamsSchema, response: noContentResponses } },
    async (request, reply) => {
      await deleteTemplate(deps.pool, {
        account: request.apiKey.account,
        id: request.params.id,
        actor: "api",
        by: auditContextOf(request),
      });
      request.log.info({ templateId: request.params.id }, "template deleted");
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/templates/:id/render",
    {
      config,
      schema: {
        params: templateParamsSchema,
        body: renderTemplateBodySchema,
        response: { 200: renderedTemplateSchema, ...errors },
      },
    },
    async (request) =>
      renderTemplateForSend(deps.pool, request.apiKey.account, {
        id: request.params.id,
        version: request.body.version,
        variables: request.body.variables,
      }),
  );
}
