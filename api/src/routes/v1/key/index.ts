import { SCOPES } from "@mailroom/core/keys";
import type { FastifyInstance } from "fastify";
import { errorSchema } from "../send/schema.ts";

const keySchema = {
  type: "object",
  required: ["keyId", "account", "name", "scopes", "expiresAt"],
  properties: {
    keyId: { type: "string", description: "The key's id (safe to log)" },
    account: { type: "string" },
    name: { type: ["string", "null"] },
    scopes: { type: "array", items: { type: "string", enum: [...SCOPES] } },
    expiresAt: { type: ["string", "null"], format: "date-time" },
  },
} as const;

/**
 * `GET /v1/key`: the calling key, never its secret. Any valid key may ask (no scope), so a client such as the
 * console can learn what the key allows before offering it.
 */
export function keyRoutes(app: FastifyInstance): void {
  app.get(
    "/v1/key",
    {
      config: { scope: "any" },
      schema: {
        summary: "Describe the calling API key: id, account, scopes, expiry",
        response: { 200: keySchema, "4xx": errorSchema, "5xx": errorSchema },
      },
    },
    async (request) => {
      const key = request.apiKey;
      return {
        keyId: key.keyId,
        account: key.account,
        name: key.name,
        scopes: key.scopes,
        expiresAt: key.expiresAt?.toISOString() ?? null,
      };
    },
  );
}
