import type { AccountRecord } from "../accounts/index.ts";
import { createBatcher } from "../db/batcher.ts";
import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import {
  type RateLimitPolicy,
  type RateLimitVerdict,
  rateLimitBuckets,
  verdictFrom,
} from "../limits/rate-limit.ts";
import { hashMatches, hashSecret, type ParsedKey, parseKey } from "./format.ts";
import { type AuthLookup, findKeysBySecret, findKeysForAuthCounting } from "./lookup.ts";
import { keyRevokedError } from "./revoke.ts";
import { type ApiKeyRecord, keyState, type Scope } from "./types.ts";

// Compared against when the key id is unknown, so that case costs the same as a wrong secret.
const DECOY_SHA256 = hashSecret("decoy-secret-that-matches-no-presented-value");

const INVALID = () => new MailroomError("invalid_api_key", "The API key is not valid.");

// `Bearer` and what follows it; the credential part is absent for `Bearer` alone (Node trims the header).
const BEARER = /^Bearer(?:[ \t]+(.*))?$/i;

/**
 * Extracts the bearer token; only `Authorization: Bearer <key>` is accepted. Undefined when the header
 * carries no bearer token at all: absent, another scheme (Basic …) or `Bearer` with nothing after it.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  const credential = BEARER.exec(authorization?.trim() ?? "")?.[1]?.trim();
  return credential ? credential : undefined;
}

/**
 * The key an Authorization header presents. No bearer token is the spec's `missing_api_key` (§7); a bearer
 * token that is not a well-formed key is `invalid_api_key`, like a wrong one.
 */
function presentedKey(authorization: string | undefined): ParsedKey {
  const token = bearerToken(authorization);
  if (token === undefined) {
    throw new MailroomError("missing_api_key", "Send the API key as `Authorization: Bearer <key>`.");
  }
  const parsed = /\s/.test(token) ? undefined : parseKey(token);
  if (!parsed) throw INVALID();
  return parsed;
}

/**
 * The decision on a looked-up key: the secret is checked before the state, so `api_key_revoked` and
 * `api_key_expired` are told only to a caller who proved it; an unknown key id and a wrong secret fail
 * identically, compared in constant time (against a decoy when the id is unknown).
 */
function decide<Found extends { key: ApiKeyRecord; secretSha256: Buffer }>(
  found: Found | undefined,
  presentedSha256: Buffer,
  now: Date,
): Found {
  const matches = hashMatches(presentedSha256, found?.secretSha256 ?? DECOY_SHA256);
  if (!found || !matches) throw INVALID();
  const state = keyState(found.key, now);
  if (state === "revoked") throw keyRevokedError(found.key.revokedReason);
  if (state === "expired") throw new MailroomError("api_key_expired", "This API key has expired.");
  return found;
}

/**
 * Resolves the key behind an Authorization header, or throws the spec's 401 codes (see `decide`). Reads
 * Postgres every time: no cache may outlive a revoke.
 */
export async function authenticateKey(
  db: Queryable,
  authorization: string | undefined,
  now: Date = new Date(),
): Promise<ApiKeyRecord> {
  return (await authenticateKeyWithAccount(db, authorization, now)).key;
}

/** `authenticateKey`, with the key's account's row (settings and state), read by the same statement. */
export async function authenticateKeyWithAccount(
  db: Queryable,
  authorization: string | undefined,
  now: Date = new Date(),
): Promise<{ key: ApiKeyRecord; account: AccountRecord }> {
  const parsed = presentedKey(authorization);
  const presentedSha256 = hashSecret(parsed.secret);
  const [found] = await findKeysBySecret(db, [{ keyId: parsed.keyId, presentedSha256 }]);
  const { key, account } = decide(found, presentedSha256, now);
  return { key, account };
}

export type KeyChecker = (
  authorization: string | undefined,
  now?: Date,
) => Promise<{ key: ApiKeyRecord; account: AccountRecord }>;

/**
 * `authenticateKeyWithAccount` for a door that checks a key again and again (the SMTP door, at every
 * message's final dot): concurrent checks share one statement (one in flight, the others gather for the
 * next), so under load a check costs a fraction of a round trip instead of one each (the final-dot check
 * alone had cut the submission bench's rate to a third). Each check still reads Postgres after it was asked
 * for, so a revoke is seen by the next message; the decision is `decide`'s, per check, as for one.
 */
export function createKeyChecker(db: Queryable): KeyChecker {
  const lookup = createBatcher(
    (lookups: Array<{ keyId: string; presentedSha256: Buffer }>) => findKeysBySecret(db, lookups),
    { concurrency: 1, maxBatch: 200 },
  );
  return async (authorization, now = new Date()) => {
    const parsed = presentedKey(authorization);
    const presentedSha256 = hashSecret(parsed.secret);
    const { key, account } = decide(
      await lookup({ keyId: parsed.keyId, presentedSha256 }),
      presentedSha256,
      now,
    );
    return { key, account };
  };
}

/** Throws `insufficient_scope` unless the key carries the scope. */
export function requireScope(key: ApiKeyRecord, scope: Scope): void {
  if (!key.scopes.includes(scope)) {
    throw new MailroomError("insufficient_scope", `This API key lacks the \`${scope}\` scope.`);
  }
}

export type RequestAuthenticator = (
  authorization: string | undefined,
  now?: Date,
) => Promise<{ key: ApiKeyRecord; account: AccountRecord; rateLimit: RateLimitVerdict | undefined }>;

/**
 * The API's authentication with its rate limiting: reads the key with its account's row (settings and state,
 * core/src/accounts) and, only when the presented secret's hash matches and the key is active, counts the
 * request against its rate-limit windows, all in the same statement.
 * Concurrent requests share that statement (one in flight, the others gather for the next), so
 * under load a request costs a fraction of a round trip; the key is still read from Postgres for every
 * request, after it arrived, so a revoke takes effect on the very next one. The decision itself is made
 * here, per request, with the constant-time comparison, exactly as `authenticateKey`.
 */
export function createRequestAuthenticator(db: Queryable, policy: RateLimitPolicy): RequestAuthenticator {
  const lookup = createBatcher((lookups: AuthLookup[]) => findKeysForAuthCounting(db, lookups, policy), {
    concurrency: 1,
    maxBatch: 200,
  });
  return async (authorization, now = new Date()) => {
    const parsed = presentedKey(authorization);
    const presentedSha256 = hashSecret(parsed.secret);
    const { key, account, hits } = decide(
      await lookup({ keyId: parsed.keyId, presentedSha256, now }),
      presentedSha256,
      now,
    );
    const buckets = rateLimitBuckets(
      {
        keyId: key.keyId,
        account: key.account,
        keyLimit: key.rateLimitPerSecond,
        accountLimit: account.rateLimitPerSecond,
      },
      policy,
    );
    return { key, account, rateLimit: verdictFrom(buckets, hits, now) };
  };
}
