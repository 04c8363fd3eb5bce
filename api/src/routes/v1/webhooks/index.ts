import {
  createEndpoint,
  createSsrfGuard,
  type DeliveryState,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "@mailroom/core/webhooks";
import type { FastifyInstance } from "fastify";
import type { ApiDeps } from "../../../deps.ts";
import { errorSchema } from "../send/schema.ts";
import {
  createBodySchema,
  createdEndpointSchema,
  deliveriesQuerySchema,
  deliveryDetailSchema,
  deliveryParamsSchema,
  deliverySchema,
  endpointSchema,
  idParamsSchema,
  patchBodySchema,
  rotateBodySchema,
  rotatedSchema,
} from "./schema.ts";

export interface WebhookRouteOptions {
  /** CIDRs an endpoint URL's IP literal may be in although private (MAILROOM_WEBHOOK_ALLOWED_CIDRS). */
  allowedCidrs?: readonly string[];
}

interface EndpointBody {
  url: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function showEndpoint(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    managedBy: e.managedBy,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

function showDelivery(d: WebhookDelivery) {
  return {
    ...d,
    nextAttemptAt: iso(d.nextAttemptAt),
    createdAt: d.createdAt.toISOString(),
    deliveredAt: iso(d.deliveredAt),
  };
}

const showAttempt = (a: WebhookAttempt) => ({
  ...a,
  at: a.at.toISOString(),
  nextAttemptAt: iso(a.nextAttemptAt),
});

const errors = { "4xx": errorSchema, "5xx": errorSchema };
const config = { scope: "webhooks" } as const;

/**
 * Webhook endpoints under /v1/webhooks (scope `webhooks`): CRUD, secret rotation, the delivery log and replay.
 * Endpoints declared by the operator answer 409 `managed_by_operator` to any change; replay is allowed.
 */
export function webhookRoutes(app: FastifyInstance, deps: ApiDeps, options: WebhookRouteOptions = {}): void {
  const ssrf = createSsrfGuard({ allowedCidrs: options.allowedCidrs ?? [] });

  app.post<{ Body: EndpointBody }>(
    "/v1/webhooks",
    { config, schema: { body: createBodySchema, response: { 201: createdEndpointSchema, ...errors } } },
    async (request, reply) => {
      const { endpoint, secret } = await createEndpoint(
        deps.pool,
        { account: request.apiKey.account, ...request.body },
        { ssrf },
      );
      request.log.info({ webhookEndpointId: endpoint.id }, "webhook endpoint created");
      return reply.code(201).send({ ...showEndpoint(endpoint), secret });
    },
  );

  app.get(
    "/v1/webhooks",
    {
      config,
      schema: {
        response: {
          200: { type: "object", properties: { data: { type: "array", items: endpointSchema } } },
          ...errors,
        },
      },
    },
    async (request) => ({ data: (await listEndpoints(deps.pool, request.apiKey.account)).map(showEndpoint) }),
  );

  app.get<{ Params: { id: string } }>(
    "/v1/webhooks/:id",
    { config, schema: { params: idParamsSchema, response: { 200: endpointSchema, ...errors } } },
    async (request) => showEndpoint(await getEndpoint(deps.pool, request.apiKey.account, request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: Partial<EndpointBody> }>(
    "/v1/webhooks/:id",
    {
      config,
      schema: { params: idParamsSchema, body: patchBodySchema, response: { 200: endpointSchema, ...errors } },
    },
    async (request) =>
      showEndpoint(
        await updateEndpoint(deps.pool, request.apiKey.account, request.params.id, request.body, { ssrf }),
      ),
  );

  app.delete<{ Params: { id: string } }>(
    "/v1/webhooks/:id",
    { config, schema: { params: idParamsSchema, response: errors } },
    async (request, reply) => {
      await deleteEndpoint(deps.pool, request.apiKey.account, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string }; Body: { overlapSeconds?: number } | null }>(
    "/v1/webhooks/:id/rotate-secret",
    {
      config,
      schema: { params: idParamsSchema, body: rotateBodySchema, response: { 200: rotatedSchema, ...errors } },
    },
    async (request) => {
      const overlapSeconds = request.body?.overlapSeconds;
      const rotated = await rotateEndpointSecret(deps.pool, request.apiKey.account, request.params.id, {
        ...(overlapSeconds === undefined ? {} : { overlapMs: overlapSeconds * 1000 }),
        ...(deps.now ? { now: deps.now() } : {}),
      });
      request.log.info({ webhookEndpointId: request.params.id }, "webhook secret rotated");
      return {
        secret: rotated.secret,
        previousSecretsExpireAt: rotated.previousSecretsExpireAt.toISOString(),
      };
    },
  );

  app.get<{
    Params: { id: string };
    Querystring: { limit?: string; after?: string; state?: DeliveryState };
  }>(
    "/v1/webhooks/:id/deliveries",
    {
      config,
      schema: {
        params: idParamsSchema,
        querystring: deliveriesQuerySchema,
        response: {
          200: {
            type: "object",
            properties: {
              data: { type: "array", items: deliverySchema },
              hasMore: { type: "boolean", description: "Another page follows: pass the last id as `after`" },
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const { limit, after, state } = request.query;
      const page = await listDeliveries(deps.pool, request.apiKey.account, request.params.id, {
        ...(limit ? { limit: Number(limit) } : {}),
        ...(after ? { after } : {}),
        ...(state ? { state } : {}),
      });
      return { data: page.data.map(showDelivery), hasMore: page.hasMore };
    },
  );

  app.get<{ Params: { id: string; deliveryId: string } }>(
    "/v1/webhooks/:id/deliveries/:deliveryId",
    { config, schema: { params: deliveryParamsSchema, response: { 200: deliveryDetailSchema, ...errors } } },
    async (request) => {
      const { id, deliveryId } = request.params;
      const found = await getDelivery(deps.pool, request.apiKey.account, id, deliveryId);
      return { ...showDelivery(found.delivery), attemptLog: found.attempts.map(showAttempt) };
    },
  );

  app.post<{ Params: { id: string; deliveryId: string } }>(
    "/v1/webhooks/:id/deliveries/:deliveryId/replay",
    { config, schema: { params: deliveryParamsSchema, response: { 202: deliverySchema, ...errors } } },
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      const delivery = await replayDelivery(deps.pool, request.apiKey.account, id, deliveryId);
      return reply.code(202).send(showDelivery(delivery));
    },
  );
}
