export {
  authenticateKey,
  bearerToken,
  createRequestAuthenticator,
  type RequestAuthenticator,
  requireScope,
} from "./authenticate.ts";
export {
  generateKey,
  hashSecret,
  KEY_PREFIX,
  type ParsedKey,
  parseKey,
  secretMatches,
} from "./format.ts";
export { revokeKey } from "./revoke.ts";
export {
  type CreateKeyInput,
  createKey,
  findKeyForAuth,
  findKeysForAuthCounting,
  LAST_USED_REFRESH_MS,
  listKeys,
  touchKeyLastUsed,
} from "./store.ts";
export * from "./types.ts";
