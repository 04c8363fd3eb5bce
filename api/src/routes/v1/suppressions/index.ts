import { parseAddress } from "@mailroom/core/emails";
import { MailroomError } from "@mailroom/core/errors";
import {
  deleteSuppression,
  getSuppression,
  listSuppressions,
  suppressManually,
} from "@mailroom/core/suppressions";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors, noContentResponses } from "../../../schemas.ts";
import {
  addressParamsSchema,
  addSuppressionBodySchema,
  listQuerySchema,
  suppressionListSchema,
  suppressionSchema,
} from "./schema.ts";

/** A malformed address is the caller's mistake (400); a well-formed one that is not listed is a 404. */
function address(param: string): string {
  const parsed = parseAddress(param);
  if (!parsed) throw new MailroomError("validation_error", "address: an email address");
  return parsed;
}

const notFound = (a: string) =>
  new MailroomError("not_found", `${a} is not on this account's suppression list.`);

/**
 * /v1/suppressions: the account's suppressed recipients (hard bounces, complaints, addresses added by hand),
 * which later sends skip with `suppressed`. Scope `send`, since the list decides what the account's sends do.
 */
export function suppressionRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const reads = readsOf(deps);
  const config = { scope: "send" as const };

  app.post(
    "/v1/suppressions",
    {
      config,
      schema: {
        summary: "Add an address by hand (reason manual); an address already listed keeps its entry (200)",
        body: addSuppressionBodySchema,
        response: { 200: suppressionSchema, 201: suppressionSchema, ...errors },
      },
    },
    async (request, reply) => {
      const wanted = address(request.body.address);
      const { account } = request.apiKey;
      const by = auditContextOf(request);
      const added = await suppressManually(deps.pool, account, wanted, request.body.detail, by);
      if (added.created) request.log.info("suppression added");
      return reply.code(added.created ? 201 : 200).send(added.suppression);
    },
  );

  app.get(
    "/v1/suppressions",
    {
      config,
      schema: {
        summary: "List suppressed addresses, alphabetically",
        querystring: listQuerySchema,
        response: { 200: suppressionListSchema, ...errors },
      },
    },
    async (request) => {
      const { limit, after } = request.query;
      return reads.read((db) =>
        listSuppressions(db, request.apiKey.account, {
          after: after?.toLowerCase(),
          limit: limit ?? 20,
        }),
      );
    },
  );

  app.get(
    "/v1/suppressions/:address",
    {
      config,
      schema: {
        summary: "Read one suppressed address",
        params: addressParamsSchema,
        response: { 200: suppressionSchema, ...errors },
      },
    },
    async (request) => {
      const wanted = address(request.params.address);
      const found = await reads.read((db) => getSuppression(db, request.apiKey.account, wanted));
      if (!found) throw notFound(wanted);
      return found;
    },
  );

  app.delete(
    "/v1/suppressions/:address",
    {
      config,
      schema: {
        summary: "Remove an address from the list so mail to it is attempted again",
        params: addressParamsSchema,
        response: noContentResponses,
      },
    },
    async (request, reply) => {
      const wanted = address(request.params.address);
      const by = auditContextOf(request);
      if (!(await deleteSuppression(deps.pool, request.apiKey.account, wanted, by))) throw notFound(wanted);
      request.log.info("suppression removed");
      return reply.code(204).send(null);
    },
  );
}
