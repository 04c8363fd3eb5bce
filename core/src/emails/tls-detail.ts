import type { TlsOutcome, TlsPolicyExemption } from "../tls-reports/outcome.ts";

/** How one delivery session's TLS went, as the email's timeline shows it on the attempt's event. */
export interface TlsTimelineEntry {
  mx: string | null;
  policyDomain: string;
  mechanism: TlsOutcome["mechanism"];
  result: TlsOutcome["result"];
  tls: boolean;
  verified: boolean;
  enforced: boolean;
  /** Why the receiver's policy was not applied to this email, if it was not (never refused, only reported). */
  exempt?: TlsPolicyExemption;
  /** One readable line, e.g. `mx1.example.com: verified TLS (mta-sts, success)`. */
  text: string;
}

const EXEMPTIONS: Record<TlsPolicyExemption, string> = {
  "tls-report": "a TLS report (RFC 8460 §5.3)",
  "tls-required-no": "TLS-Required: No (RFC 8689)",
};

function describe(o: TlsOutcome): string {
  const channel = !o.tls ? "no TLS" : o.verified ? "verified TLS" : "unverified TLS";
  const why = o.result === "success" ? "success" : `${o.result}${o.detail ? `: ${o.detail}` : ""}`;
  const relaxed = o.exempt
    ? `, policy not applied: ${EXEMPTIONS[o.exempt]}`
    : o.result !== "success" && !o.enforced
      ? ", policy not enforced"
      : "";
  return `${o.mxHost ?? o.policyDomain}: ${channel} (${o.mechanism}, ${why}${relaxed})`;
}

/**
 * The attempt's TLS outcomes for its timeline event (`detail.tls`): one entry per session (recipients that
 * shared one report equal outcomes), in the order met. Empty when the transport reported none (capture,
 * simulator, or a transport that does not check TLS policy).
 */
export function tlsTimelineOf(outcomes: readonly { tls?: TlsOutcome | undefined }[]): TlsTimelineEntry[] {
  const seen = new Map<string, TlsTimelineEntry>();
  for (const { tls } of outcomes) {
    if (!tls) continue;
    const key = JSON.stringify(tls);
    if (seen.has(key)) continue;
    seen.set(key, {
      mx: tls.mxHost ?? null,
      policyDomain: tls.policyDomain,
      mechanism: tls.mechanism,
      result: tls.result,
      tls: tls.tls,
      verified: tls.verified,
      enforced: tls.enforced,
      ...(tls.exempt ? { exempt: tls.exempt } : {}),
      text: describe(tls),
    });
  }
  return [...seen.values()];
}
