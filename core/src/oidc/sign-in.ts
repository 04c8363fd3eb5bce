import type { Config } from "../config/index.ts";
import type { Pool } from "../db/pool.ts";
import { encryptSecret } from "../domains/crypto.ts";
import { MailroomError } from "../errors/index.ts";
import { storePersonRefreshToken } from "../keys/person.ts";
import { createKey } from "../keys/store.ts";
import type { ApiKeyRecord } from "../keys/types.ts";
import { providerMetadata } from "./provider.ts";
import { grantsOf } from "./roles.ts";
import { failed, groupsOf, tokenRequest, verifyIdToken } from "./tokens.ts";

type OidcConfig = Config["oidc"];

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

/**
 * A person's sign-in (issue 33 item 3, ADR 0063): the code is redeemed at the provider, the ID token verified,
 * the person's groups mapped to roles, and a key of the spec's shape minted for them in the chosen account,
 * with the union of their roles' scopes there, 30 days at most, recorded with its owner. No role: refused.
 */
export async function signInPerson(
  pool: Pool,
  oidc: OidcConfig,
  kek: Buffer,
  request: SignInRequest,
): Promise<SignInResult> {
  const provider = oidc.provider;
  if (!provider) throw new MailroomError("not_found", "Sign-in with a provider is not configured here.");
  const meta = await providerMetadata(provider.issuer);
  const answer = await tokenRequest(meta, provider, {
    grant_type: "authorization_code",
    code: request.code,
    redirect_uri: provider.redirectUri,
    code_verifier: request.codeVerifier,
  });
  if (!answer.ok) throw failed(`the provider refused the code (${answer.error})`);
  if (!answer.idToken) throw failed("the provider returned no ID token");
  const { accessToken, refreshToken } = answer;
  const claims = await verifyIdToken(meta, provider, answer.idToken, request.nonce);
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
  // Kept (encrypted, bound to the key id) to ask the provider again for the person's groups (recheck.ts).
  if (refreshToken) {
    await storePersonRefreshToken(
      pool,
      key.keyId,
      encryptSecret(kek, Buffer.from(refreshToken), `oidc-refresh:${key.keyId}`),
      new Date(),
    );
  }
  return { key, fullKey, accounts: [...grants.keys()] };
}
