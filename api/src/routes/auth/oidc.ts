import { MailroomError } from "@mailroom/core/errors";
import { revokeKey } from "@mailroom/core/keys";
import { providerMetadata, signInPerson } from "@mailroom/core/oidc";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../audit-by.ts";
import type { ApiDeps } from "../../deps.ts";
import type { ApiTypeProvider } from "../../schemas.ts";

const token = { type: "string", minLength: 1, maxLength: 4096 } as const;

/**
 * The console's sign-in with the company's OpenID Connect provider (issue 33 item 3, ADR 0063). Not part of
 * the public API (hidden from OpenAPI): these routes only lead to a bearer key, the API's one way in.
 * `GET /auth/oidc`: what the console needs to send the person to the provider (public).
 * `POST /auth/oidc/session`: the code, PKCE verifier and nonce the console holds → a key for the person.
 * `POST /auth/oidc/sign-out`: revokes the calling person's key (a machine's key is refused: the CLI revokes it).
 */
export function oidcRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const oidc = deps.config.oidc;
  app.get("/auth/oidc", { schema: { hide: true } }, async () => {
    if (!oidc.provider) return { enabled: false };
    const meta = await providerMetadata(oidc.provider.issuer);
    return {
      enabled: true,
      issuer: oidc.provider.issuer,
      authorizationEndpoint: meta.authorizationEndpoint,
      clientId: oidc.provider.clientId,
      redirectUri: oidc.provider.redirectUri,
      scopes: oidc.provider.scopes,
    };
  });
  app.post(
    "/auth/oidc/session",
    {
      schema: {
        hide: true,
        body: {
          type: "object",
          additionalProperties: false,
          required: ["code", "codeVerifier", "nonce"],
          properties: {
            code: token,
            // RFC 7636 §4.1: 43 to 128 unreserved characters.
            codeVerifier: { type: "string", pattern: "^[A-Za-z0-9._~-]{43,128}$" },
            nonce: token,
            account: { type: "string", minLength: 1, maxLength: 63 },
          },
        },
      },
    },
    async (request) => {
      const result = await signInPerson(deps.pool, oidc, deps.kek, request.body);
      return {
        key: result.fullKey,
        keyId: result.key.keyId,
        account: result.key.account,
        scopes: result.key.scopes,
        expiresAt: result.key.expiresAt,
        accounts: result.accounts,
        person: result.key.owner,
      };
    },
  );
  app.post(
    "/auth/oidc/sign-out",
    { config: { scope: "any" }, schema: { hide: true } },
    async (request, reply) => {
      if (!request.apiKey.owner) {
        throw new MailroomError(
          "conflict",
          "This key belongs to a machine, not a signed-in person: revoke it by key id with `mailroom keys revoke`.",
        );
      }
      // In the trail as the person ending their session (ADR 0069), like any other revocation.
      await revokeKey(deps.pool, request.apiKey.keyId, auditContextOf(request));
      return reply.code(204).send();
    },
  );
}
