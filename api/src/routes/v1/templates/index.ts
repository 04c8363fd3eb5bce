import { MailroomError } from "@mailroom/core/errors";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  getTemplateVersion,
  listTemplates,
  renderTemplateForSend,
  type TemplateRecord,
  type TemplateSummary,
  type TemplateVersion,
  type UpdateTemplateInput,
  updateTemplate,
  type VariablesSchema,
} from "@mailroom/core/templates";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../../../deps.ts";
import { errorSchema } from "../send/schema.ts";
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

interface CreateBody extends UpdateTemplateInput {
  name: string;
  subject: string;
}
interface RenderBody {
  variables: Record<string, unknown>;
  version?: number;
}
type IdParams = { id: string };

const errors = { "4xx": errorSchema, "5xx": errorSchema };
const notFound = () => new MailroomError("not_found", "No template with this id.");

function presentSummary(t: TemplateSummary) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    managedBy: t.managedBy,
    version: t.version,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

function presentTemplate(t: TemplateRecord) {
  return {
    ...presentSummary(t),
    subject: t.subject,
    html: t.html,
    text: t.text,
    variables: t.variables,
    versions: t.versions.map((v) => ({ version: v.version, createdAt: v.createdAt.toISOString() })),
  };
}

function presentVersion(v: TemplateVersion) {
  return { ...v, createdAt: v.createdAt.toISOString() };
}

/** /v1/templates: saved Handlebars templates, versioned on every content change. Scope `templates`. */
export function templateRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const config = { scope: "templates" as const };

  app.post<{ Body: CreateBody }>(
    "/v1/templates",
    { config, schema: { body: createTemplateBodySchema, response: { 201: templateSchema, ...errors } } },
    async (request, reply) => {
      const { variables, ...rest } = request.body;
      const template = await createTemplate(deps.pool, {
        ...rest,
        variables: variables as VariablesSchema | null | undefined,
        account: request.apiKey.account,
        managedBy: "api",
      });
      request.log.info({ templateId: template.id }, "template created");
      return reply.code(201).send(presentTemplate(template));
    },
  );

  app.get<{ Querystring: { limit?: string; after?: string } }>(
    "/v1/templates",
    { config, schema: { querystring: listQuerySchema, response: { 200: templateListSchema, ...errors } } },
    async (request) => {
      const { limit, after } = request.query;
      const page = await listTemplates(deps.pool, request.apiKey.account, {
        after,
        limit: limit === undefined ? undefined : Number(limit),
      });
      return { data: page.data.map(presentSummary), hasMore: page.hasMore };
    },
  );

  app.get<{ Params: IdParams }>(
    "/v1/templates/:id",
    { config, schema: { params: templateParamsSchema, response: { 200: templateSchema, ...errors } } },
    async (request) => {
      const template = await getTemplate(deps.pool, request.apiKey.account, request.params.id);
      if (!template) throw notFound();
      return presentTemplate(template);
    },
  );

  app.get<{ Params: IdParams & { version: string } }>(
    "/v1/templates/:id/versions/:version",
    { config, schema: { params: versionParamsSchema, response: { 200: templateVersionSchema, ...errors } } },
    async (request) => {
      const { id, version } = request.params;
      const found = await getTemplateVersion(deps.pool, request.apiKey.account, id, Number(version));
      if (!found) throw new MailroomError("not_found", `No version ${version} of a template with this id.`);
      return presentVersion(found);
    },
  );

  app.patch<{ Params: IdParams; Body: UpdateTemplateInput }>(
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
      const target = { account: request.apiKey.account, id: request.params.id, actor: "api" as const };
      const template = await updateTemplate(deps.pool, target, request.body);
      request.log.info({ templateId: template.id, version: template.version }, "template updated");
      return presentTemplate(template);
    },
  );

  app.delete<{ Params: IdParams }>(
    "/v1/templates/:id",
    { config, schema: { params: templateParamsSchema, response: errors } },
    async (request, reply) => {
      await deleteTemplate(deps.pool, {
        account: request.apiKey.account,
        id: request.params.id,
        actor: "api",
      });
      request.log.info({ templateId: request.params.id }, "template deleted");
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams; Body: RenderBody }>(
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
