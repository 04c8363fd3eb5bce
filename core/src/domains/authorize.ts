import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { judgeSenderDomain, type SenderDomainVerdict } from "./grants.ts";

export type SenderAuthorizer = (account: string, fromAddress: string) => Promise<void>;

/**
 * Checks that a From address's domain is a verified sending domain of the key's account, or a shared domain
 * (ClusterSendingDomain) granted to it; else 422 `domain_not_verified`, or 403 `domain_not_allowed` for a
 * shared domain whose allowed namespaces leave the account out. The answer names only the caller's own domain,
 * never another account's. Verdicts are kept `ttlMs` (a few seconds) so the send hot path does not query per
 * request; a newly verified or granted domain is usable, and a deleted or withdrawn one refused, within that
 * time.
 */
export function createSenderAuthorizer(db: Queryable, options: { ttlMs?: number; allowAny?: boolean } = {}) {
  const ttlMs = options.ttlMs ?? 5_000;
  const verdicts = new Map<string, { verdict: SenderDomainVerdict; expires: number }>();
  const authorize: SenderAuthorizer = async (account, fromAddress) => {
    if (options.allowAny) return;
    const domain = fromAddress.slice(fromAddress.lastIndexOf("@") + 1).toLowerCase();
    const cacheKey = `${account}\n${domain}`;
    let cached = verdicts.get(cacheKey);
    if (!cached || cached.expires <= Date.now()) {
      cached = { verdict: await judgeSenderDomain(db, account, fromAddress), expires: Date.now() + ttlMs };
      if (verdicts.size > 10_000) verdicts.clear();
      verdicts.set(cacheKey, cached);
    }
    if (cached.verdict === "not_allowed") {
      throw new MailroomError(
        "domain_not_allowed",
        `from: ${domain} is a shared sending domain this account (namespace) is not allowed to send from. ` +
          "Ask the platform team to add the namespace to the ClusterSendingDomain's spec.allowedNamespaces.",
      );
    }
    if (cached.verdict === "not_verified") {
      throw new MailroomError(
        "domain_not_verified",
        `from: ${domain} is not a verified sending domain of this account. Add it with POST /v1/domains, ` +
          "publish its DNS records, then verify it.",
      );
    }
  };
  return authorize;
}
