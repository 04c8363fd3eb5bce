import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { findVerifiedDomain } from "./store.ts";

export type SenderAuthorizer = (account: string, fromAddress: string) => Promise<void>;

/**
 * Checks that a From address's domain is a verified sending domain of the key's account, else 422
 * `domain_not_verified`. The answer names only the caller's own domain, never another account's. Verdicts
 * are kept `ttlMs` (a few seconds) so the send hot path does not query per request; a newly verified domain
 * is usable, and a deleted one refused, within that time.
 */
export function createSenderAuthorizer(db: Queryable, options: { ttlMs?: number; allowAny?: boolean } = {}) {
  const ttlMs = options.ttlMs ?? 5_000;
  const verdicts = new Map<string, { verified: boolean; expires: number }>();
  const authorize: SenderAuthorizer = async (account, fromAddress) => {
    if (options.allowAny) return;
    const domain = fromAddress.slice(fromAddress.lastIndexOf("@") + 1).toLowerCase();
    const cacheKey = `${account}\n${domain}`;
    let verdict = verdicts.get(cacheKey);
    if (!verdict || verdict.expires <= Date.now()) {
      verdict = {
        verified: Boolean(await findVerifiedDomain(db, account, fromAddress)),
        expires: Date.now() + ttlMs,
      };
      if (verdicts.size > 10_000) verdicts.clear();
      verdicts.set(cacheKey, verdict);
    }
    if (!verdict.verified) {
      throw new MailroomError(
        "domain_not_verified",
        `from: ${domain} is not a verified sending domain of this account. Add it with POST /v1/domains, ` +
          "publish its DNS records, then verify it.",
      );
    }
  };
  return authorize;
}
