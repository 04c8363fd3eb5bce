import {
  createEndpointAs,
  createSsrfGuard,
  deleteEndpointAs,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  rotateEndpointSecretAs,
  updateEndpointAs,
  WEBHOOK_EVENT_TYPES,
} from "@mailroom/core/webhooks";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors, noContentResponses } from "../../../schemas.ts";
import {
  createBodySchema,
  createdEndpointSchema,
  deliveriesQuerySchema,
  deliveryDetailSchema,
  deliveryPageSchema,
  deliveryParamsSchema,
  deliverySchema,
  endpointListSchema,
  endpointSchema,
  eventTypesSchema,
  idParamsSchema,
  patchBodySchema,
  rotateBodySchema,
  rotatedSchema,
} from "./schema.ts";

export interface WebhookRouteOptions {
  /** CIDRs an endpoint URL's IP literal may be in although private (MAILROOM_WEBHOOK_ALLOWED_CIDRS). */
  allowedCidrs?: readonly string[];
}

const config = { scope: "webhooks" } as const;

/** The endpoint a request names, in the key's account. */
const targetOf = (request: { apiKey: { account: string }; params: { id: string } }) => ({
  account: request.apiKey.account,
  id: request.params.id,
});

/**
 * Webhook endpoints under /v1/webhooks (scope `webhooks`): CRUD, secret rotation, the delivery log and replay,
 * and the event types an endpoint can subscribe to.
 * Endpoints declared by the operator answer 409 `managed_by_operator` to any change; replay is allowed.
 */
export function webhookRoutes(
  parent: FastifyInstance,
  deps: ApiDeps,
  options: WebhookRouteOptions = {},
): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const reads = readsOf(deps);
  const ssrf = createSsrfGuard({ allowedCidrs: options.allowedCidrs ?? [] });

  app.post(
    "/v1/webhooks",
    { config, schema: { body: createBodySchema, response: { 201: createdEndpointSchema, ...errors } } },
    async (request, reply) => {
      const { endpoint, secret } = await createEndpointAs(
        auditContextOf(request),
        deps.pool,
        { account: request.apiKey.account, ...request.body },
        { ssrf },
      );
      request.log.info({ webhookEndpointId: endpoint.id }, "webhook endpoint created");
      return reply.code(201).send({ ...endpoint, secret });
    },
  );

  app.get(
    "/v1/webhooks",
    {
      config,
      schema: {
        response: { 200: endpointListSchema, ...errors },
      },
    },
    async (request) => ({ data: await reads.read((db) => listEndpoints(db, request.apiKey.account)) }),
  );

  // The console's form offers these (issue 33 item 5): the list has one home, core's WEBHOOK_EVENT_TYPES.
  app.get(
    "/v1/webhooks/event-types",
    { config, schema: { response: { 200: eventTypesSchema, ...errors } } },
    async () => ({ data: [...WEBHOOK_EVENT_TYPES] }),
  );

  app.get(
    "/v1/webhooks/:id",
    { config, schema: { params: idParamsSchema, response: { 200: endpointSchema, ...errors } } },
    async (request) => reads.read((db) => getEndpoint(db, request.apiKey.account, request.params.id)),
  );

  app.patch(
    "/v1/webhooks/:id",
    {
      config,
      schema: { params: idParamsSchema, body: patchBodySchema, response: { 200: endpointSchema, ...errors } },
    },
    async (request) =>
      updateEndpointAs(auditContextOf(request), deps.pool, targetOf(request), request.body, { ssrf }),
  );

  app.delete(
    "/v1/webhooks/:id",
    { config, schema: { params: idParamsSchema, response: noContentResponses } },
    async (request, reply) => {
      await deleteEndpointAs(auditContextOf(request), deps.pool, targetOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/webhooks/:id/rotate-secret",
    {
      config,
      schema: { params: idParamsSchema, body: rotateBodySchema, response: { 200: rotatedSchema, ...errors } },
    },
    async (request) => {
      const overlapSeconds = request.body?.overlapSeconds;
      const rotated = await rotateEndpointSecretAs(auditContextOf(request), deps.pool, targetOf(request), {
        ...(overlapSeconds === undefined ? {} : { overlapMs: overlapSeconds * 1000 }),
        ...(deps.now ? { now: deps.now() } : {}),
      });
      request.log.info({ webhookEndpointId: request.params.id }, "webhook secret rotated");
      return rotated;
    },
  );

  app.get(
    "/v1/webhooks/:id/deliveries",
    {
      config,
      schema: {
        params: idParamsSchema,
        querystring: deliveriesQuerySchema,
        response: { 200: deliveryPageSchema, ...errors },
      },
    },
    async (request) => {
      const { limit, after, state } = request.query;
      return reads.read((db) =>
        listDeliveries(db, request.apiKey.account, request.params.id, {
          ...(limit ? { limit } : {}),
          ...(after ? { after } : {}),
          ...(state ? { state } : {}),
        }),
      );
    },
  );

  app.get(
    "/v1/webhooks/:id/deliveries/:deliveryId",
    { config, schema: { params: deliveryParamsSchema, response: { 200: deliveryDetailSchema, ...errors } } },
    async (request) => {
      const { id, deliveryId } = request.params;
      const found = await reads.read((db) => getDelivery(db, request.apiKey.account, id, deliveryId));
      return { ...found.delivery, attemptLog: found.attempts };
    },
  );

  app.post(
    "/v1/webhooks/:id/deliveries/:deliveryId/replay",
    { config, schema: { params: deliveryParamsSchema, response: { 202: deliverySchema, ...errors } } },
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      const by = auditContextOf(request);
      const delivery = await replayDelivery(deps.pool, request.apiKey.account, id, deliveryId, by);
      return reply.code(202).send(delivery);
    },
  );
}
