import { checkChaosRules, loadChaosRules, replaceChaosRules } from "@mailroom/core/sandbox";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import type { ApiDeps } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors } from "../../../schemas.ts";

const ruleSchema = {
  type: "object",
  additionalProperties: false,
  required: ["at", "action"],
  properties: {
    recipient: {
      type: "string",
      minLength: 2,
      maxLength: 320,
      description: "One envelope recipient (any case) or `@domain`; absent: every recipient",
    },
    share: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1,
      description: "The share of attempts it fails, drawn per attempt (default 1: every one)",
    },
    at: { type: "string", enum: ["rcpt", "data"], description: "The SMTP step that fails" },
    action: {
      type: "string",
      enum: ["reply", "drop", "slow"],
      description: "`reply` with `code`, a dropped connection, or a slow server (`delaySeconds`, then 250)",
    },
    code: {
      type: "integer",
      minimum: 400,
      maximum: 599,
      description: "The reply: 4xx is temporary (retried), 5xx permanent (a bounce)",
    },
    delaySeconds: { type: "integer", minimum: 1, maximum: 30 },
  },
} as const;

const rulesSchema = {
  type: "object",
  additionalProperties: false,
  required: ["rules"],
  properties: { rules: { type: "array", maxItems: 20, items: ruleSchema } },
} as const;

/**
 * /v1/dev-inbox/chaos (scope `send`, issue 30 item 4, ADR 0048): the account's chaos rules, which the
 * capture transport applies to its sandbox mail only. `PUT` replaces the whole set (`[]` turns chaos off).
 */
export function chaosRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const config = { scope: "send" as const };
  app.get(
    "/v1/dev-inbox/chaos",
    {
      config,
      schema: {
        summary: "The account's chaos rules for its sandbox mail",
        response: { 200: rulesSchema, ...errors },
      },
    },
    async (request) => ({ rules: await loadChaosRules(deps.pool, request.apiKey.account) }),
  );
  app.put(
    "/v1/dev-inbox/chaos",
    {
      config,
      schema: {
        summary: "Replace the account's chaos rules: SMTP failures injected into its sandbox mail",
        body: rulesSchema,
        response: { 200: rulesSchema, ...errors },
      },
    },
    async (request) => {
      const rules = checkChaosRules(request.body.rules);
      await replaceChaosRules(deps.pool, request.apiKey.account, rules, auditContextOf(request));
      return { rules: await loadChaosRules(deps.pool, request.apiKey.account) };
    },
  );
}
