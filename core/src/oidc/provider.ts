import { createRemoteJWKSet, type JWTVerifyGetKey } from "jose";
import { MailroomError } from "../errors/index.ts";

/** What Mailroom reads of a provider's `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0). */
export interface ProviderMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string | undefined;
  jwks: JWTVerifyGetKey;
}

const unavailable = (why: string, cause?: unknown) =>
  new MailroomError("service_unavailable", `The sign-in provider cannot be reached: ${why}.`, {
    retryable: true,
    cause,
  });

async function discover(issuer: string): Promise<ProviderMetadata> {
  const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  let body: Record<string, unknown>;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw unavailable(`${url} answered ${response.status}`);
    body = (await response.json()) as Record<string, unknown>;
  } catch (error) {
    throw error instanceof MailroomError ? error : unavailable(`${url} did not answer`, error);
  }
  const text = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : undefined);
  const authorizationEndpoint = text("authorization_endpoint");
  const tokenEndpoint = text("token_endpoint");
  const jwksUri = text("jwks_uri");
  // The issuer in the document must be the configured one exactly (Discovery 1.0 §4.3): a mix-up defence.
  if (text("issuer") !== issuer || !authorizationEndpoint || !tokenEndpoint || !jwksUri) {
    throw unavailable(`${url} is not the discovery document of ${issuer}`);
  }
  return {
    issuer,
    authorizationEndpoint,
    tokenEndpoint,
    userinfoEndpoint: text("userinfo_endpoint"),
    // jose fetches the JWKS on first use and again when a token names a key it does not hold (rotation).
    jwks: createRemoteJWKSet(new URL(jwksUri)),
  };
}

const cache = new Map<string, Promise<ProviderMetadata>>();

/** The provider's metadata, read once per process; a failed read is not kept, so the next sign-in retries. */
export function providerMetadata(issuer: string): Promise<ProviderMetadata> {
  let found = cache.get(issuer);
  if (!found) {
    found = discover(issuer);
    cache.set(issuer, found);
    found.catch(() => cache.delete(issuer));
  }
  return found;
}
