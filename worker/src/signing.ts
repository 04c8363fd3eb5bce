import type { Queryable } from "@mailroom/core/db";
import {
  findVerifiedDomain,
  loadSigningKeys,
  returnPathDomainFor,
  type SigningKey,
  signMessageAsync,
} from "@mailroom/core/domains";

interface CachedDomain {
  expires: number;
  domain?: { name: string; returnPath: string; keys: SigningKey[] };
}

export interface Signer {
  /** DKIM-signs a message from a verified domain and names its bounce (Return-Path) domain. */
  prepare(
    account: string,
    fromAddress: string,
    raw: Buffer,
    emailId: string,
  ): Promise<{ raw: Buffer; envelopeFrom: string; signed: boolean }>;
}

/**
 * Signs with the account's verified domain of the From address. Keys are decrypted once and kept for
 * `ttlMs`, so the hot path does no decryption or key parsing per message; a domain that stops being verified
 * stops being used within that time. Mail from an unverified domain (only possible where local runs relax
 * the check) leaves unsigned with the From address as envelope sender.
 */
export function createSigner(db: Queryable, kek: Buffer | undefined, ttlMs = 60_000): Signer {
  const cache = new Map<string, CachedDomain>();
  async function domainFor(account: string, fromAddress: string) {
    const cacheKey = `${account}\n${fromAddress.slice(fromAddress.lastIndexOf("@") + 1)}`;
    const hit = cache.get(cacheKey);
    if (hit && hit.expires > Date.now()) return hit.domain;
    const found = kek ? await findVerifiedDomain(db, account, fromAddress) : undefined;
    const entry: CachedDomain = { expires: Date.now() + ttlMs };
    if (found && kek) {
      entry.domain = {
        name: found.name,
        returnPath: returnPathDomainFor(found.name),
        keys: await loadSigningKeys(db, kek, found),
      };
    }
    cache.set(cacheKey, entry);
    return entry.domain;
  }
  return {
    prepare: async (account, fromAddress, raw, emailId) => {
      const domain = await domainFor(account, fromAddress);
      if (!domain || domain.keys.length === 0) return { raw, envelopeFrom: fromAddress, signed: false };
      return {
        raw: await signMessageAsync(raw, domain.keys),
        // VERP: the bounce address names the email, so an asynchronous bounce can be matched to it.
        envelopeFrom: `bounce+${emailId}@${domain.returnPath}`,
        signed: true,
      };
    },
  };
}
