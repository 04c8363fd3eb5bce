// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export {
  authenticateKey,
  createKeyChecker,
  createRequestAuthenticator,
  type KeyChecker,
  requireScope,
} from "./authenticate.ts";
export { recordSmtpAuthFailures } from "./auth-failures.ts";
export { parseKey } from "./format.ts";
export { createKeyAs, listAccountKeys, MAX_KEY_NAME } from "./manage.ts";
export { checkPersonSession } from "./person.ts";
export { revokeKey } from "./revoke.ts";
export { createKey, listKeys, touchKeyLastUsed } from "./store.ts";
export * from "./types.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { authenticateKeyWithAccount } from "./authenticate.ts";
/** @internal */
export { hashSecret, secretMatches } from "./format.ts";
/** @internal */
export { findKeyForAuth, findKeysForAuthCounting } from "./lookup.ts";
