import { KEY_MODES, SCOPES } from "@mailroom/core/keys";
import type { FastifyInstance } from "fastify";
import { type ApiTypeProvider, errorResponses, nullableTimestamp } from "../../../schemas.ts";

const keySchema = {
  type: "object",
  additionalProperties: false,
  required: ["keyId", "account", "name", "scopes", "expiresAt", "mode"],
  properties: {
    keyId: { type: "string", description: "The key's id (safe to log)" },
    account: { type: "string" },
    name: { type: ["string", "null"] },
    scopes: { type: "array", items: { type: "string", enum: [...SCOPES] } },
    expiresAt: nullableTimestamp,
    mode: {
      type: "string",
      enum: [...KEY_MODES],
      description: "`sandbox`: what the key sends is captured into its account's dev inbox, never delivered",
    },
  },
} as const;

/**
 * `GET /v1/key`: the calling key, never its secret. Any valid key may ask (no scope), so a client such as the
 * console can learn what the key allows before offering it.
 */
export function keyRoutes(app: FastifyInstance): void {
  app.withTypeProvider<ApiTypeProvider>().get(
    "/v1/key",
    {
      config: { scope: "any" },
      schema: {
        summary: "Describe the calling API key: id, account, scopes, expiry, mode",
        response: { 200: keySchema, ...errorResponses },
      },
    },
    async (request) => request.apiKey,
  );
}
