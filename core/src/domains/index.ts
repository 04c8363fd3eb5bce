// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { findBounceDomainOwner } from "./bounce-domains.ts";
export * from "./checks/index.ts";
export { formatTxtForZoneFile, type SigningKey } from "./dkim.ts";
export { signMessage, signMessageAsync } from "./dkim-sign.ts";
export { deleteDomain } from "./delete.ts";
export { CLUSTER_ACCOUNT, setDomainGrants } from "./grants.ts";
export { getDmarcSummary, purgeDmarcData } from "./dmarc/index.ts";
export { ensureLocalKek, loadKek } from "./kek.ts";
export { recheckDueDomains, verifyDomain } from "./recheck.ts";
export { normalizeDomainName, type RecordOptions, returnPathDomainFor, zoneFileData } from "./records.ts";
export * from "./rotation/index.ts";
export {
  createDomain,
  findVerifiedDomain,
  getDomain,
  getDomainById,
  listDomains,
} from "./store.ts";
export { loadSigningKeys } from "./signing-keys.ts";
export * from "./types.ts";
export { makeTxtLookup } from "./verify.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { generateKek } from "./crypto.ts";
/** @internal */
export { dkimTxtValue, generateDkimKey, nodemailerDkimOptions, splitTxtValue } from "./dkim.ts";
/** @internal */
export { buildDnsRecords } from "./records.ts";
/** @internal */
export { recordVerification } from "./store.ts";
/** @internal */
export type { RotationDeps } from "./rotation/run.ts";
/** @internal */
export { recordChecks } from "./checks/store.ts";
