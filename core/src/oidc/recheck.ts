import type { Config } from "../config/index.ts";
import type { Pool } from "../db/pool.ts";
import { decryptSecret, encryptSecret } from "../domains/crypto.ts";
import { MailroomError } from "../errors/index.ts";
import { claimPersonRecheck, storePersonRefreshToken } from "../keys/person.ts";
import { revokeForCause } from "../keys/revoke.ts";
import type { ApiKeyRecord } from "../keys/types.ts";
import { providerMetadata } from "./provider.ts";
import { grantsOf } from "./roles.ts";
import { groupsOf, tokenRequest, verifyIdToken } from "./tokens.ts";

const aad = (keyId: string) => `oidc-refresh:${keyId}`;

/**
 * Asks the provider again, every `MAILROOM_OIDC_RECHECK_SECONDS` at a use of a person's key, whether the
 * person still holds a role granting the key's scopes in its account (ADR 0063): the refresh token kept at
 * sign-in is redeemed, the new ID token verified and the groups read (ID token, else userinfo). A person who
 * lost the role, or whom the provider refuses to refresh (disabled, session ended), has the key revoked and
 * the request answered `api_key_revoked`. An unreachable provider changes nothing until the next check.
 */
export async function recheckPerson(
  pool: Pool,
  oidc: Config["oidc"],
  kek: Buffer,
  key: ApiKeyRecord,
  now: Date,
): Promise<void> {
  const provider = oidc.provider;
  if (!provider || !key.owner || key.owner.issuer !== provider.issuer) return;
  if (key.ownerCheckedAt && now.getTime() - key.ownerCheckedAt.getTime() < oidc.recheckSeconds * 1000) return;
  const envelope = await claimPersonRecheck(pool, key.keyId, now, oidc.recheckSeconds);
  if (!envelope) return;
  const who = key.owner.email ?? key.owner.subject;
  const lose = (why: string) => revokeForCause(pool, key.keyId, "oidc-recheck", why);
  let groups: string[];
  let rotated: string | undefined;
  try {
    const meta = await providerMetadata(provider.issuer);
    const answer = await tokenRequest(meta, provider, {
      grant_type: "refresh_token",
      refresh_token: decryptSecret(kek, envelope, aad(key.keyId)).toString(),
    });
    if (!answer.ok) return await lose(`the provider no longer vouches for ${who} (${answer.error})`);
    const claims = answer.idToken
      ? await verifyIdToken(meta, provider, answer.idToken, undefined)
      : { sub: key.owner.subject };
    if (claims.sub !== key.owner.subject) return await lose("the provider answered for someone else");
    groups = (await groupsOf(meta, provider, claims, answer.accessToken)).groups;
    rotated = answer.refreshToken;
  } catch (error) {
    // An ID token that does not verify is not the provider vouching: the key goes, as on a refused refresh.
    if (error instanceof MailroomError && error.code === "sign_in_failed") {
      return await lose("the provider's answer could not be verified");
    }
    // Revoked just now (`lose`): the request is answered so.
    if (error instanceof MailroomError && error.code !== "service_unavailable") throw error;
    // Unreachable provider, or a token the key-encryption key no longer opens: fail open until the next check.
    return;
  }
  const granted = grantsOf(groups, oidc.roles).get(key.account) ?? [];
  if (!key.scopes.every((scope) => granted.includes(scope))) {
    await lose(`${who} no longer has a role granting its scopes in ${key.account}`);
  }
  if (rotated) {
    await storePersonRefreshToken(
      pool,
      key.keyId,
      encryptSecret(kek, Buffer.from(rotated), aad(key.keyId)),
      now,
    );
  }
}
