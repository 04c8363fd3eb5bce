import { createHash, timingSafeEqual } from "node:crypto";
import { customAlphabet } from "nanoid";

export const KEY_PREFIX = "mrk";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const KEY_ID_LENGTH = 12;
export const SECRET_LENGTH = 32;

// nanoid draws from crypto.getRandomValues with rejection sampling, so every base62 char is uniform.
const newKeyId = customAlphabet(BASE62, KEY_ID_LENGTH);
const newSecret = customAlphabet(BASE62, SECRET_LENGTH);

const KEY_PATTERN = new RegExp(
  `^${KEY_PREFIX}_([0-9A-Za-z]{${KEY_ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH}})$`,
);

export interface ParsedKey {
  keyId: string;
  secret: string;
}

export interface GeneratedKey extends ParsedKey {
  /** The full `mrk_<keyId>_<secret>` string: shown once, never stored or logged. */
  fullKey: string;
  secretSha256: Buffer;
}

/** Makes a new key: 12 base62 chars of id, 32 base62 chars (~190 bits) of CSPRNG secret. */
export function generateKey(): GeneratedKey {
  const keyId = newKeyId();
  const secret = newSecret();
  return { keyId, secret, fullKey: `${KEY_PREFIX}_${keyId}_${secret}`, secretSha256: hashSecret(secret) };
}

/** Parses a key strictly; anything that is not exactly `mrk_<12 base62>_<32 base62>` yields undefined. */
export function parseKey(value: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(value);
  if (!match?.[1] || !match[2]) return undefined;
  return { keyId: match[1], secret: match[2] };
}

/** SHA-256 of the secret. A slow password hash would be wrong here: the secret is high-entropy and hot. */
export function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/** Constant-time comparison of a presented secret's hash with a stored hash. */
export function hashMatches(presentedSha256: Buffer, storedSha256: Buffer): boolean {
  return storedSha256.length === presentedSha256.length && timingSafeEqual(presentedSha256, storedSha256);
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedSha256: Buffer): boolean {
  return hashMatches(hashSecret(secret), storedSha256);
}
