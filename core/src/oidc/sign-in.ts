import { errors as joseErrors, jwtVerify } from "jose";
import type { Config } from "../config/index.ts";
import type { Pool } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { createKey } from "../keys/store.ts";
import type { ApiKeyRecord } from "../keys/types.ts";
import { type ProviderMetadata, providerMetadata } from "./provider.ts";
import { grantsOf, groupsFromClaim } from "./roles.ts";

type OidcConfig = Config["oidc"];
type ProviderConfig = NonNullable<OidcConfig["provider"]>;

/** What the console sends back after the provider redirected to it (it checked `state` itself first). */
export interface SignInRequest {
  code: string;
  codeVerifier: string;
  nonce: string;
  /** The account to sign in to; unset: the first (by name) the person has a role in. */
  account?: string | undefined;
}

export interface SignInResult {
  key: ApiKeyRecord;
  /** The full key: returned once to the tab, never stored. */
  fullKey: string;
  /** Every account the person may choose (a later sign-in can name another). */
  accounts: string[];
}

const failed = (why: string, cause?: unknown) =>
  new MailroomError("sign_in_failed", `Sign-in failed: ${why}. Start the sign-in again.`, { cause });

/** Trades the authorization code (with the PKCE verifier, and the client secret when confidential). */
async function redeemCode(meta: ProviderMetadata, provider: ProviderConfig, request: SignInRequest) {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: request.code,
    redirect_uri: provider.redirectUri,
    code_verifier: request.codeVerifier,
    client_id: provider.clientId,
  });
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
      body: form,
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new MailroomError("service_unavailable", "The sign-in provider's token endpoint did not answer.", {
      retryable: true,
      cause: error,
    });
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    throw failed(`the provider refused the code (${String(body.error ?? response.status)})`);
  }
  if (typeof body.id_token !== "string") throw failed("the provider returned no ID token");
  return {
    idToken: body.id_token,
    accessToken: typeof body.access_token === "string" ? body.access_token : undefined,
  };
}

/** The ID token's claims once its signature (JWKS), issuer, audience, expiry and nonce all hold. */
async function verifyIdToken(
  meta: ProviderMetadata,
  provider: ProviderConfig,
  idToken: string,
  nonce: string,
) {
  try {
    const { payload } = await jwtVerify(idToken, meta.jwks, {
      issuer: provider.issuer,
      audience: provider.clientId,
      requiredClaims: ["sub", "exp", "iat"],
      clockTolerance: 30,
    });
    if (payload.nonce !== nonce) throw failed("the ID token's nonce is not this sign-in's");
    return payload;
  } catch (error) {
    if (error instanceof MailroomError) throw error;
    if (error instanceof joseErrors.JOSEError)
      throw failed(`the ID token is not valid (${error.code})`, error);
    throw error;
  }
}

/** The groups claim from the ID token, or from userinfo when the provider keeps it there (for the same `sub`). */
async function groupsOf(
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
      throw failed("the provider's userinfo endpoint did not answer", error);
    });
    const info = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok && info.sub === claims.sub) source = { ...info, ...claims };
  }
  const email = typeof source.email === "string" ? source.email : null;
  return { groups: groupsFromClaim(source[provider.groupsClaim]), email };
}

/**
 * A person's sign-in (issue 33 item 3, ADR 0063): the code is redeemed at the provider, the ID token verified,
 * the person's groups mapped to roles, and a key of the spec's shape minted for them in the chosen account,
 * with the union of their roles' scopes there, 30 days at most, recorded with its owner. No role: refused.
 */
export async function signInPerson(
  pool: Pool,
  oidc: OidcConfig,
  request: SignInRequest,
): Promise<SignInResult> {
  const provider = oidc.provider;
  if (!provider) throw new MailroomError("not_found", "Sign-in with a provider is not configured here.");
  const meta = await providerMetadata(provider.issuer);
  const { idToken, accessToken } = await redeemCode(meta, provider, request);
  const claims = await verifyIdToken(meta, provider, idToken, request.nonce);
  const { groups, email } = await groupsOf(meta, provider, claims, accessToken);
  const grants = grantsOf(groups, oidc.roles);
  const who = email ?? claims.sub;
  if (grants.size === 0) {
    throw new MailroomError(
      "sign_in_refused",
      `${who} is signed in at the provider but belongs to no group that has a role in Mailroom. ` +
        "Ask an administrator to add you to one of the groups in MAILROOM_OIDC_ROLES.",
    );
  }
  const account = request.account ?? [...grants.keys()][0];
  const scopes = account ? grants.get(account) : undefined;
  if (!account || !scopes) {
    throw new MailroomError("sign_in_refused", `${who} has no role in the account ${request.account}.`);
  }
  const { key, fullKey } = await createKey(pool, {
    account,
    scopes,
    expires: "30d",
    name: `sign-in: ${who}`,
    managedBy: "api",
    owner: { issuer: provider.issuer, subject: String(claims.sub), email },
  });
  return { key, fullKey, accounts: [...grants.keys()] };
}
