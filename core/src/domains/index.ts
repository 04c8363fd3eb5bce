export { createSenderAuthorizer, type SenderAuthorizer } from "./authorize.ts";
export { findBounceDomainOwner } from "./bounce-domains.ts";
export { DecryptionError, decryptSecret, encryptSecret, generateKek, KEK_LENGTH } from "./crypto.ts";
export { deleteDomain } from "./delete.ts";
export {
  dkimRecordName,
  dkimTxtValue,
  ED25519_SELECTOR_SUFFIX,
  formatTxtForZoneFile,
  type GeneratedDkimKey,
  generateDkimKey,
  makeSelectors,
  type NodemailerDkimOptions,
  nodemailerDkimOptions,
  RSA_MODULUS_BITS,
  type SigningKey,
  selectorsFor,
  splitTxtValue,
} from "./dkim.ts";
export {
  type Canonicalization,
  DEFAULT_SIGNED_HEADERS,
  dkimSignatureHeaders,
  type SignOptions,
  signMessage,
  signMessageAsync,
} from "./dkim-sign.ts";
export { ensureLocalKek, loadKek } from "./kek.ts";
export { type RecheckDeps, recheckDueDomains, verifyDomain } from "./recheck.ts";
export {
  buildDnsRecords,
  dmarcValue,
  normalizeDomainName,
  RETURN_PATH_LABEL,
  type RecordOptions,
  returnPathDomainFor,
  spfValue,
  zoneFileData,
} from "./records.ts";
export {
  claimDomainsDueForRecheck,
  nextCheckAt,
  RECHECK_TEMPORARY_FAILURE_MS,
  RECHECK_UNVERIFIED_MS,
  RECHECK_VERIFIED_MS,
} from "./schedule.ts";
export {
  type CreateDomainInput,
  createDomain,
  findVerifiedDomain,
  getDomain,
  getDomainById,
  listDomains,
  loadSigningKeys,
  recordVerification,
  type VerificationOutcome,
} from "./store.ts";
export * from "./types.ts";
export {
  checkRecord,
  checkRecords,
  type DnsResolverOptions,
  deriveDomainStatus,
  type LookupTxt,
  makeTxtLookup,
  type TxtLookup,
} from "./verify.ts";
