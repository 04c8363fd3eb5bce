import { describeAccount, resumeAccount } from "@mailroom/core/accounts";
import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import type { ApiDeps } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses } from "../../../schemas.ts";
import { batchBodySchema } from "../send/schema.ts";
import { accountSchema, resumeResultSchema } from "./schema.ts";

/**
 * `GET /v1/account` (any valid key): the key's account's state, limits, quota usage and reputation rates.
 * `POST /v1/account/resume` (`domains` scope, the one that manages what the account sends as): resumes a
 * paused account, releases its held mail and records the key that resumed it (issue 31).
 */
export function accountRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const now = deps.now ?? (() => new Date());
  app.get(
    "/v1/account",
    {
      config: { scope: "any" },
      schema: {
        summary: "The account's sending state, limits, usage and bounce and complaint rates",
        response: { 200: accountSchema, ...errorResponses },
      },
    },
    async (request) =>
      describeAccount(
        deps.pool,
        request.account,
        {
          requestsPerSecond: deps.config.limits.rateLimit.perAccount,
          batchSize: batchBodySchema.maxItems,
        },
        now(),
      ),
  );
  app.post(
    "/v1/account/resume",
    {
      config: { scope: "domains" },
      schema: {
        summary: "Resume a paused account: new sends are accepted and held mail leaves",
        response: { 200: resumeResultSchema, ...errorResponses },
      },
    },
    async (request) => {
      const account = request.account.account;
      const released = await resumeAccount(deps.pool, account, {
        by: `key:${request.apiKey.keyId}`,
        now: now(),
        audit: auditContextOf(request),
      });
      if (released === undefined) throw new MailroomError("conflict", "The account's sending is not paused.");
      return { account, sendingStatus: "active" as const, released };
    },
  );
}
