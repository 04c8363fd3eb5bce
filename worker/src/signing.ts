import { deriveVerpKey, verpAddress } from "@mailroom/core/bounces";
import type { Queryable } from "@mailroom/core/db";
import {
  findVerifiedDomain,
  loadSigningKeys,
  returnPathDomainFor,
  type SigningKey,
  signMessage,
  signMessageAsync,
} from "@mailroom/core/domains";

interface CachedDomain {
  expires: number;
  domain: { name: string; returnPath: string; keys: SigningKey[] };
}

export type SigningPlace = "thread-pool" | "event-loop";

/**
 * Where a worker process signs (ADR 0075): on its event loop when it runs only the reserved lane, whose loop
 * serves at most `reservedConcurrency` deliveries, so one signature (about a millisecond of CPU for RSA-2048)
 * holds up at most those few; a hand-over to libuv's pool and back costs two thread wake-ups, each a wait for a
 * CPU on a node a flood keeps busy. Every other process signs on the thread pool, off the loop that runs many
 * deliveries (ADR 0008).
 */
export function signingPlaceFor(lanes: readonly string[]): SigningPlace {
  return lanes.length === 1 && lanes[0] === "reserved" ? "event-loop" : "thread-pool";
}

export interface Signer {
  /**
   * DKIM-signs a message from a verified domain and names each recipient's bounce (Return-Path) address:
   * `envelopeFrom(recipient)`.
   */
  prepare(
    account: string,
    fromAddress: string,
    raw: Buffer,
    emailId: string,
  ): Promise<{ raw: Buffer; envelopeFrom: (recipient: string) => string; signed: boolean }>;
}

/**
 * Signs with the account's verified domain of the From address. A verified domain's keys are decrypted once
 * and kept for `ttlMs`, so the hot path does no decryption or key parsing per message; a domain that stops
 * being verified stops being used within that time. "No verified domain" is never cached: it is only
 * possible where local runs relax the from-domain check, and a domain verified meanwhile must sign the very
 * next message (issue 17). Such mail leaves unsigned with the From address as envelope sender.
 */
export function createSigner(
  db: Queryable,
  kek: Buffer | undefined,
  ttlMs = 60_000,
  /**
   * Where the private-key operation runs: libuv's thread pool (default, ADR 0008: off a busy event loop), or
   * the event loop itself, for a process whose loop serves only a few deliveries (`signingPlaceFor`).
   */
  place: SigningPlace = "thread-pool",
): Signer {
  const cache = new Map<string, CachedDomain>();
  const verpKey = kek ? deriveVerpKey(kek) : undefined;
  async function domainFor(account: string, fromAddress: string) {
    const cacheKey = `${account}\n${fromAddress.slice(fromAddress.lastIndexOf("@") + 1)}`;
    const hit = cache.get(cacheKey);
    if (hit && hit.expires > Date.now()) return hit.domain;
    cache.delete(cacheKey);
    const found = kek ? await findVerifiedDomain(db, account, fromAddress) : undefined;
    if (!found || !kek) return undefined;
    const domain = {
      name: found.name,
      returnPath: returnPathDomainFor(found.name),
      keys: await loadSigningKeys(db, kek, found),
    };
    cache.set(cacheKey, { expires: Date.now() + ttlMs, domain });
    return domain;
  }
  return {
    prepare: async (account, fromAddress, raw, emailId) => {
      const domain = await domainFor(account, fromAddress);
      if (!domain || domain.keys.length === 0 || !verpKey) {
        return { raw, envelopeFrom: () => fromAddress, signed: false };
      }
      return {
        raw:
          place === "event-loop" ? signMessage(raw, domain.keys) : await signMessageAsync(raw, domain.keys),
        // VERP: each recipient's signed bounce address names the email and that recipient, so a later
        // bounce or complaint is matched to the email and can affect only the recipient it came back from.
        envelopeFrom: (recipient: string) => verpAddress(verpKey, emailId, domain.returnPath, recipient),
        signed: true,
      };
    },
  };
}
