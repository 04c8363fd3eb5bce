import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";

/**
 * A real OpenID Connect provider for tests: the certified `oidc-provider` package with its development
 * login pages (any login, any password: the login is the person's id). `groups` is read at every token and
 * userinfo request, so a test can take a person out of a group between two requests.
 */
export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  groups: Map<string, string[]>;
  close(): Promise<void>;
}

export async function startOidcProvider(options: {
  port: number;
  redirectUri: string;
  groups: Record<string, string[]>;
}): Promise<TestOidcProvider> {
  const issuer = `http://127.0.0.1:${options.port}`;
  const groups = new Map(Object.entries(options.groups));
  const clientId = "mailroom-console";
  const clientSecret = "test-client-secret-0123456789abcdef";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        response_types: ["code"],
        grant_types: ["authorization_code", "refresh_token"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email"], groups: ["groups"] },
    cookies: { keys: ["test-cookie-signing-key"] },
    // S256 only, and required of every client, confidential ones too.
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    // A refresh token at every sign-in, so Mailroom can ask for the person's groups again (ADR 0063).
    issueRefreshToken: async () => true,
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: `${id}@example.test`, groups: groups.get(id) ?? [] }),
    }),
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    groups,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
