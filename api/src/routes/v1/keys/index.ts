import { MailroomError } from "@mailroom/core/errors";
import { type ApiKeyRecord, createKeyAs, keyState, listAccountKeys, revokeKey } from "@mailroom/core/keys";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors } from "../../../schemas.ts";
import {
  createdKeySchema,
  createKeyBodySchema,
  keyPageSchema,
  keyParamsSchema,
  keysQuerySchema,
  revokedKeySchema,
} from "./schema.ts";

const config = { scope: "keys" } as const;

/**
 * The account's API keys under /v1/keys (scope `keys`, issue 33 item 5, ADR 0069): list (never a secret),
 * create within the calling key's own scopes (the full key answered once), revoke by key id through the same
 * `revokeKey` as the CLI and the operator, so the key's unsent mail fails with `api_key_revoked` at once.
 * A key an ApiKey resource declares answers 409 `managed_by_operator`; the calling key itself 409 `conflict`.
 */
export function keysRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const reads = readsOf(deps);
  const now = deps.now ?? (() => new Date());
  const described = (key: ApiKeyRecord) => ({ ...key, state: keyState(key, now()) });

  app.get(
    "/v1/keys",
    {
      config,
      schema: {
        summary: "List the account's keys, newest first: ids, names, scopes, dates, owner; never a secret",
        querystring: keysQuerySchema,
        response: { 200: keyPageSchema, ...errors },
      },
    },
    async (request) => {
      const { limit = 50, after, state } = request.query;
      const filter = { limit, after, state };
      const page = await reads.read((db) => listAccountKeys(db, request.apiKey.account, filter, now()));
      return { data: page.data.map(described), hasMore: page.hasMore };
    },
  );

  app.post(
    "/v1/keys",
    {
      config,
      schema: {
        summary: "Create a key with at most the calling key's scopes; the full key is shown once",
        body: createKeyBodySchema,
        response: { 201: createdKeySchema, ...errors },
      },
    },
    async (request, reply) => {
      const by = auditContextOf(request);
      const { key, fullKey } = await createKeyAs(deps.pool, request.apiKey, request.body, by);
      request.log.info({ createdKeyId: key.keyId }, "api key created");
      return reply.code(201).send({ ...described(key), key: fullKey });
    },
  );

  app.post(
    "/v1/keys/:keyId/revoke",
    {
      config,
      schema: {
        summary: "Revoke a key by its id: refused from the next request on, its unsent mail failed",
        params: keyParamsSchema,
        response: { 200: revokedKeySchema, ...errors },
      },
    },
    async (request) => {
      const { keyId } = request.params;
      const guard = { account: request.apiKey.account, callerKeyId: request.apiKey.keyId };
      const revoked = await revokeKey(deps.pool, keyId, auditContextOf(request), guard);
      if (!revoked) throw new MailroomError("not_found", `No key ${keyId} in this account.`);
      request.log.info({ revokedKeyId: keyId }, "api key revoked");
      return { ...described(revoked.key), failedEmails: revoked.failedEmailIds.length };
    },
  );
}
