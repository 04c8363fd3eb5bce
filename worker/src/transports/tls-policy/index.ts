import type { TlsOutcome, TlsPolicyExemption } from "@mailroom/core/tls-reports";

type TlsResultType = TlsOutcome["result"];

import { createDane, tlsaMatch, tlsaText } from "./dane.ts";
import { createMtaSts, type MtaStsOptions } from "./mta-sts.ts";
import type { PeerTls } from "./peer.ts";
import { mxMatches, type StsPolicy } from "./sts-policy.ts";
import type { TlsaRecord } from "./tlsa-query.ts";

export { type PeerTls, peerTlsOf, trustedCas } from "./peer.ts";

/**
 * How sessions to one destination must meet TLS: one object per recipient domain (or relay) and message,
 * built before connecting and applied to each session it opens (DESIGN.md: receiver TLS policy is one
 * object per domain, applied where the connection is built).
 */
export interface DestinationPolicy {
  outcome: Pick<
    TlsOutcome,
    "mechanism" | "policyDomain" | "policyType" | "policyStrings" | "enforced" | "exempt"
  >;
  /** What refuses a failing session, for the reply: "MTA-STS policy of x (enforce)", "REQUIRETLS", … */
  enforcedBy?: string;
  /** The MTA-STS policy, whose MX patterns limit the hosts tried. */
  sts?: StsPolicy;
  /** DNSSEC-validated TLSA records of the MX host (DANE, RFC 7672): they replace every other check. */
  tlsa?: TlsaRecord[];
  /** A policy announced but not had (fetch failed, invalid): reported on every session, not enforced. */
  unavailable?: { result: TlsResultType; detail: string };
}

/** A session's judgement: the outcome to report, and the refusal when the session must not be used. */
export interface Verdict {
  outcome: TlsOutcome;
  refusal?: string;
}

export type { MtaStsOptions } from "./mta-sts.ts";

/**
 * The policy as it is, judged and reported, but enforced nowhere: for an email exempt from receivers' policies
 * (a TLS report, RFC 8460 §5.3; `TLS-Required: No`, RFC 8689 §5). Its sessions are never refused, so they go
 * over TLS when the MX offers it, whatever the certificate, else in plain text.
 */
function exempted(policy: DestinationPolicy, exempt: TlsPolicyExemption | undefined): DestinationPolicy {
  if (!exempt) return policy;
  const { enforcedBy: _refusesNothing, ...kept } = policy;
  return { ...kept, outcome: { ...policy.outcome, enforced: false, exempt } };
}

/**
 * The TLS policies of direct delivery: MTA-STS (RFC 8461) when the domain publishes one, else
 * opportunistic TLS; a message with `requireTls` (RFC 8689) needs a verified certificate either way; an
 * exempt one (`exempted`) none.
 */
export function createTlsPolicies(options: MtaStsOptions & { dane?: { server: string; timeoutMs: number } }) {
  const sts = createMtaSts(options);
  const dane = options.dane
    ? createDane({ ...options.dane, cacheSeconds: options.dnsCacheSeconds })
    : undefined;
  return {
    /**
     * The policy for one MX host: DANE where its TLSA records validate (RFC 7672 ahead of MTA-STS, RFC 8461
     * §2), the domain's otherwise; a verdict instead when DNSSEC says the host must not be used.
     */
    async forHost(
      policy: DestinationPolicy,
      host: string,
      port: number,
    ): Promise<{ policy: DestinationPolicy } | { refused: Verdict }> {
      const found = dane ? await dane.lookup(host, port) : { kind: "none" as const };
      const exempt = policy.outcome.exempt;
      // An exempt email is not held back by DNSSEC trouble either: the domain's (exempt) policy reports it.
      if (found.kind === "none" || (found.kind === "bogus" && exempt)) return { policy };
      const outcome = {
        mechanism: "dane" as const,
        policyDomain: policy.outcome.policyDomain,
        policyType: "tlsa" as const,
        enforced: true,
      };
      if (found.kind === "bogus") {
        const daneOnly = { outcome, enforcedBy: `DANE for ${host}` };
        return { refused: verdictOf(daneOnly, { mxHost: host, detail: found.detail }, "dnssec-invalid") };
      }
      const daneHost: DestinationPolicy = {
        outcome: { ...outcome, policyStrings: tlsaText(found.records) },
        enforcedBy: `DANE TLSA of ${host}`,
        tlsa: found.records,
      };
      return { policy: exempted(daneHost, exempt) };
    },
    async forDomain(
      domain: string,
      requireTls: boolean,
      exempt?: TlsPolicyExemption,
    ): Promise<DestinationPolicy> {
      return exempted(await domainPolicy(domain, requireTls), exempt);
    },
  };

  async function domainPolicy(domain: string, requireTls: boolean): Promise<DestinationPolicy> {
    const found = await sts.lookup(domain);
    if (found.kind === "policy" && found.policy.mode !== "none") {
      const { policy } = found;
      const enforcing = policy.mode === "enforce";
      return {
        outcome: {
          mechanism: "mta-sts",
          policyDomain: domain,
          policyType: "sts",
          policyStrings: policy.lines,
          enforced: enforcing || requireTls,
        },
        sts: policy,
        ...(enforcing
          ? { enforcedBy: `MTA-STS policy of ${domain} (enforce)` }
          : requireTls
            ? { enforcedBy: "REQUIRETLS" }
            : {}),
      };
    }
    return {
      outcome: {
        mechanism: "opportunistic",
        policyDomain: domain,
        policyType: found.kind === "unavailable" ? "sts" : "no-policy-found",
        enforced: requireTls,
      },
      ...(requireTls ? { enforcedBy: "REQUIRETLS" } : {}),
      ...(found.kind === "unavailable"
        ? { unavailable: { result: found.result, detail: found.detail } }
        : {}),
    };
  }
}

/**
 * The smarthost's policy: its certificate is checked during the handshake (unless allowed otherwise), a
 * plain session stays allowed (a relay on the local network), and REQUIRETLS needs TLS with a verified one.
 */
export function relayPolicy(host: string, requireTls: boolean): DestinationPolicy {
  return {
    outcome: { mechanism: "relay", policyDomain: host, policyType: "no-policy-found", enforced: requireTls },
    ...(requireTls ? { enforcedBy: "REQUIRETLS" } : {}),
  };
}

/**
 * The outcome of a session refused during its TLS handshake, if that is what failed: nodemailer reports it
 * as ETLS or ESOCKET with Node's message ("certificate has expired", "… does not match certificate's
 * altnames", "self-signed certificate in certificate chain").
 */
export function judgeHandshakeFailure(
  policy: DestinationPolicy,
  target: { hostname: string; address: string },
  error: { code?: string; message?: string },
): TlsOutcome | undefined {
  const message = error.message ?? "";
  const tlsFailure =
    error.code === "ETLS" || (error.code === "ESOCKET" && /certificate|altname/i.test(message));
  if (!tlsFailure) return undefined;
  const result: TlsResultType = /expired/i.test(message)
    ? "certificate-expired"
    : /altname|does not match/i.test(message)
      ? "certificate-host-mismatch"
      : "certificate-not-trusted";
  const base = { mxHost: target.hostname, receivingIp: target.address, detail: message };
  return { ...verdictOf(policy, base, result).outcome, enforced: true };
}

function failure(peer: PeerTls): TlsResultType | undefined {
  if (!peer.secure) return "starttls-not-supported";
  if (peer.authorized) return undefined;
  if (peer.error === "CERT_HAS_EXPIRED") return "certificate-expired";
  if (peer.error === "ERR_TLS_CERT_ALTNAME_INVALID") return "certificate-host-mismatch";
  return "certificate-not-trusted";
}

const DESCRIPTIONS: Partial<Record<TlsResultType, string>> = {
  "starttls-not-supported": "no TLS (STARTTLS not offered or failed)",
  "certificate-expired": "the certificate has expired",
  "certificate-host-mismatch": "the certificate is not valid for the host name",
  "certificate-not-trusted": "the certificate is not trusted",
  "validation-failure": "the MX host is not named by the policy",
  "tlsa-invalid": "the certificate matches none of the TLSA records",
  "dnssec-invalid": "its TLSA records could not be had with DNSSEC",
};

function verdictOf(policy: DestinationPolicy, base: Partial<TlsOutcome>, found: TlsResultType | undefined) {
  // Opportunistic TLS asks for no certificate: a session over TLS meets it, verified or not.
  const checked = policy.outcome.mechanism !== "opportunistic" || policy.outcome.enforced;
  const result = checked || found === "starttls-not-supported" ? found : undefined;
  const detail = result
    ? `${base.mxHost}: ${DESCRIPTIONS[result] ?? result}${base.detail ? ` (${base.detail})` : ""}`
    : policy.unavailable?.detail;
  const outcome: TlsOutcome = {
    ...policy.outcome,
    tls: false,
    verified: false,
    ...base,
    result: result ?? policy.unavailable?.result ?? "success",
  };
  delete outcome.detail;
  if (detail && outcome.result !== "success") outcome.detail = detail;
  const refuse = result !== undefined && policy.outcome.enforced && policy.enforcedBy;
  return refuse ? { outcome, refusal: `${policy.enforcedBy}: ${detail}` } : { outcome };
}

/** Whether an MX host may be tried at all: under an enforced MTA-STS policy only the hosts it names. */
export function judgeMx(policy: DestinationPolicy, mxHost: string): Verdict | undefined {
  if (!policy.sts || mxMatches(policy.sts, mxHost)) return undefined;
  const verdict = verdictOf(policy, { mxHost }, "validation-failure");
  // A testing policy reports the mismatch on the session's own outcome; only enforce skips the host.
  return policy.sts.mode === "enforce" ? verdict : undefined;
}

/** Judges an open session against the destination's policy. */
export function judgeSession(
  policy: DestinationPolicy,
  target: { hostname: string; address: string },
  peer: PeerTls,
): Verdict {
  const base = {
    mxHost: target.hostname,
    receivingIp: target.address,
    tls: peer.secure,
    verified: peer.secure && peer.authorized,
    ...(peer.error ? { detail: peer.error } : {}),
  };
  if (policy.tlsa) {
    const matched = peer.secure && tlsaMatch(policy.tlsa, peer.chain ?? [], target.hostname);
    const daneBase = { ...base, verified: matched };
    return verdictOf(
      policy,
      daneBase,
      !peer.secure ? "starttls-not-supported" : matched ? undefined : "tlsa-invalid",
    );
  }
  const stsMismatch = policy.sts !== undefined && !mxMatches(policy.sts, target.hostname);
  return verdictOf(policy, base, failure(peer) ?? (stsMismatch ? "validation-failure" : undefined));
}
