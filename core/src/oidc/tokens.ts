import { errors as joseErrors, jwtVerify } from "jose";
import type { Config } from "../config/index.ts";
import { MailroomError } from "../errors/index.ts";
import type { ProviderMetadata } from "./provider.ts";
import { groupsFromClaim } from "./roles.ts";

export type ProviderConfig = NonNullable<Config["oidc"]["provider"]>;

export const failed = (why: string, cause?: unknown) =>
  new MailroomError("sign_in_failed", `Sign-in failed: ${why}. Start the sign-in again.`, { cause });

/** What a token endpoint answered; `refused` when it said no (`invalid_grant` …), not when it was unreachable. */
export type TokenAnswer =
  | {
      ok: true;
      idToken: string | undefined;
      accessToken: string | undefined;
      refreshToken: string | undefined;
    }
  | { ok: false; error: string };

/** One token request (a code or a refresh token), with the client secret as HTTP Basic when confidential. */
export async function tokenRequest(
  meta: ProviderMetadata,
  provider: ProviderConfig,
  grant: Record<string, string>,
): Promise<TokenAnswer> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (provider.clientSecret) {
    // RFC 6749 §2.3.1: each part form-urlencoded before Basic.
    const basic = `${encodeURIComponent(provider.clientId)}:${encodeURIComponent(provider.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(basic).toString("base64")}`;
  }
  let response: Response;
  try {
    response = await fetch(meta.tokenEndpoint, {
      method: "POST",
      headers,
      body: new URLSearchParams({ ...grant, client_id: provider.clientId }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new MailroomError("service_unavailable", "The sign-in provider's token endpoint did not answer.", {
      retryable: true,
      cause: error,
    });
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) return { ok: false, error: String(body.error ?? response.status) };
  const text = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : undefined);
  return {
    ok: true,
    idToken: text("id_token"),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
  };
}

/** The ID token's claims once its signature (JWKS), issuer, audience, expiry and nonce (if given) hold. */
export async function verifyIdToken(
  meta: ProviderMetadata,
  provider: ProviderConfig,
  idToken: string,
  nonce: string | undefined,
) {
  try {
    const { payload } = await jwtVerify(idToken, meta.jwks, {
      issuer: provider.issuer,
      audience: provider.clientId,
      requiredClaims: ["sub", "exp", "iat"],
      clockTolerance: 30,
    });
    if (nonce !== undefined && payload.nonce !== nonce)
      throw failed("the ID token's nonce is not this sign-in's");
    return payload;
  } catch (error) {
    if (error instanceof MailroomError) throw error;
    if (error instanceof joseErrors.JOSEError)
      throw failed(`the ID token is not valid (${error.code})`, error);
    throw error;
  }
}

/** The groups claim from the ID token, or from userinfo when the provider keeps it there (for the same `sub`). */
export async function groupsOf(
  meta: ProviderMetadata,
  provider: ProviderConfig,
  claims: Record<string, unknown>,
  accessToken: string | undefined,
): Promise<{ groups: string[]; email: string | null }> {
  let source = claims;
  if (!(provider.groupsClaim in claims) && meta.userinfoEndpoint && accessToken) {
    const response = await fetch(meta.userinfoEndpoint, {
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(10_000),
    }).catch((error: unknown) => {
      throw new MailroomError(
        "service_unavailable",
        "The sign-in provider's userinfo endpoint did not answer.",
        {
          retryable: true,
          cause: error,
        },
      );
    });
    const info = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok && info.sub === claims.sub) source = { ...info, ...claims };
  }
  const email = typeof source.email === "string" ? source.email : null;
  return { groups: groupsFromClaim(source[provider.groupsClaim]), email };
}
