import { isIP } from "node:net";
import { createSsrfGuard } from "@mailroom/core/webhooks";
import { createMxResolver, type MxResolver } from "./mx-resolver.ts";
import { failureResult, type SmtpError, toRecipientResults } from "./results.ts";
import { createSessionPool, type SessionPool, type SessionTarget } from "./session-pool.ts";
import { createShaper, type ShapedSlot, type ShaperOptions } from "./shaping/index.ts";
import {
  createTlsPolicies,
  type DestinationPolicy,
  judgeMx,
  judgeSession,
  trustedCas,
} from "./tls-policy/index.ts";
import { type MailTransport, type OutboundMessage, type RecipientResult, sendEachEnvelope } from "./types.ts";

/** Options for delivering straight to each recipient domain's MX hosts. */
export interface DirectTransportOptions {
  /** Resolvers as `host:port`; the system's when empty. */
  dnsServers: readonly string[];
  /**
   * Longest time a DNS answer is reused, in seconds (`MAILROOM_DNS_CACHE_SECONDS`); 0 asks again for every
   * message, though concurrent lookups of one name still share one query.
   */
  dnsCacheSeconds: number;
  /** Name sent with EHLO; receivers check it against our reverse DNS. */
  heloName: string;
  /** Port of every MX host: 25 in production, a test sink's port in tests. */
  port?: number;
  connectTimeoutMs?: number;
  socketTimeoutMs?: number;
  dnsTimeoutMs?: number;
  /** How long an idle session is kept for the next message to the same destination. */
  idleTimeoutMs?: number;
  /**
   * Private and loopback ranges MX hosts may resolve into (CIDRs). By default an MX host resolving to a
   * private, loopback, link-local or metadata address is never connected to: a recipient domain must not be
   * able to point Mailroom at services inside its own network. Metadata and link-local stay refused always.
   */
  allowedCidrs?: readonly string[];
  /** Limits and adaptive backoff per destination, an MX host or a provider group of them (ADR 0059). */
  shaping: ShaperOptions;
  /** CA certificates (PEM) trusted besides the system's, for MX hosts and MTA-STS policy hosts. */
  extraCas?: readonly string[];
  /**
   * The resolvers validate DNSSEC and set the AD bit (`MAILROOM_DNS_VALIDATES_DNSSEC`): MX hosts' TLSA
   * records are then honoured (DANE, RFC 7672), asked of the first of `dnsServers`.
   */
  dnssecValidating?: boolean;
  /** Port of every MTA-STS policy host: 443 in production, a test server's port in tests. */
  mtaStsPort?: number;
}

function domainOf(recipient: string): string | undefined {
  const at = recipient.lastIndexOf("@");
  return at > 0 && at < recipient.length - 1 ? recipient.slice(at + 1).toLowerCase() : undefined;
}

function groupByDomain(recipients: readonly string[]) {
  const groups = new Map<string, string[]>();
  const invalid: string[] = [];
  for (const recipient of recipients) {
    const domain = domainOf(recipient);
    if (!domain) invalid.push(recipient);
    else groups.set(domain, [...(groups.get(domain) ?? []), recipient]);
  }
  return { groups, invalid };
}

/** A recipient deferred because the session did not meet the destination's TLS policy. */
const refusedByPolicy = (
  recipient: string,
  response: string,
  tls: RecipientResult["tls"],
): RecipientResult => ({
  recipient,
  status: "temporary",
  response,
  ...(tls ? { tls } : {}),
});

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Delivers each recipient domain's share of a message to that domain's MX hosts in preference order.
 * Recipients an MX host defers (a refused or lost connection, a 4xx for the transaction or for them) are
 * offered to the next host; accepted and permanently refused ones are settled. What is still deferred
 * after the last host carries that host's reply.
 */
export function createDirectTransport(options: DirectTransportOptions): MailTransport {
  const port = options.port ?? 25;
  const guard = createSsrfGuard({ allowedCidrs: [...(options.allowedCidrs ?? [])] });
  const resolver: MxResolver = createMxResolver({
    servers: options.dnsServers,
    timeoutMs: options.dnsTimeoutMs ?? 5_000,
    cacheSeconds: options.dnsCacheSeconds,
  });
  const cas = trustedCas(options.extraCas ?? []);
  const policies = createTlsPolicies({
    dnsServers: options.dnsServers,
    dnsTimeoutMs: options.dnsTimeoutMs ?? 5_000,
    dnsCacheSeconds: options.dnsCacheSeconds,
    resolveAddresses: (host) => resolver.resolveAddresses(host),
    refusalOf: (address) => guard.refusalOf(address),
    ca: options.extraCas ?? [],
    port: options.mtaStsPort ?? 443,
    timeoutMs: options.connectTimeoutMs ?? 30_000,
    ...(options.dnssecValidating && options.dnsServers[0]
      ? { dane: { server: options.dnsServers[0], timeoutMs: options.dnsTimeoutMs ?? 5_000 } }
      : {}),
  });
  const pool: SessionPool = createSessionPool({
    // Sessions are pooled per destination, under its shaping's concurrency (each acquire says how many).
    maxSessionsPerDomain: 1,
    connection: (target) => ({
      host: target.address,
      port: target.port,
      // SNI needs a name; the MX name is what a receiving server's certificate would carry.
      ...(isIP(target.hostname) ? {} : { servername: target.hostname }),
      name: options.heloName,
      // STARTTLS whenever offered, never refusing a certificate during the handshake: MX certificates are
      // often not valid for their names, and refusing them would only push the mail to plain text. Where a
      // policy (MTA-STS, REQUIRETLS) asks for more, the open session is judged (`tls-policy/`).
      opportunisticTLS: true,
      tls: { rejectUnauthorized: false, ...(cas ? { ca: cas } : {}) },
      connectionTimeout: options.connectTimeoutMs ?? 30_000,
      greetingTimeout: options.connectTimeoutMs ?? 30_000,
      socketTimeout: options.socketTimeoutMs ?? 120_000,
    }),
    idleTimeoutMs: options.idleTimeoutMs ?? 5_000,
    // Each target carries its destination's messages per connection; this is only the pool's fallback.
    maxMessagesPerSession: 100,
  });

  const shaper = createShaper(options.shaping);

  /**
   * One transaction at one address, under its destination's shaping; `connected` is false when no session
   * could be had there. One the shaping did not attempt counts as answered: the next MX host may be another
   * destination, while the host's other addresses are the same one.
   */
  const transaction = (
    destination: { domain: string; policy: DestinationPolicy },
    target: SessionTarget,
    envelope: { from: string; to: string[] },
    message: OutboundMessage,
  ) =>
    shaper.run(
      target.hostname,
      envelope.to,
      (slot) =>
        exchange(
          slot,
          destination,
          { ...target, maxMessages: slot.messagesPerConnection },
          envelope,
          message,
        ),
      (results) => ({ connected: true, results }),
    );

  /** The transaction on a pooled session, once its TLS has been judged against the destination's policy. */
  async function exchange(
    slot: ShapedSlot,
    { policy }: { domain: string; policy: DestinationPolicy },
    target: SessionTarget,
    envelope: { from: string; to: string[] },
    message: OutboundMessage,
  ) {
    let lease: Awaited<ReturnType<SessionPool["acquire"]>>;
    try {
      lease = await pool.acquire(slot.poolKey, target, slot.sessions);
    } catch (error) {
      return { connected: false, results: toRecipientResults(envelope.to, { error: error as SmtpError }) };
    }
    const { outcome: tls, refusal } = judgeSession(policy, target, lease.tls);
    const withTls = (results: RecipientResult[]) => results.map((r) => ({ ...r, tls }));
    if (refusal) {
      // Nothing was sent: the session stays usable for mail that does not need what it lacks.
      lease.release(true);
      return {
        connected: true,
        results: envelope.to.map((recipient) => refusedByPolicy(recipient, refusal, tls)),
      };
    }
    try {
      const info = await lease.send(envelope, message);
      lease.release(true);
      return { connected: true, results: withTls(toRecipientResults(envelope.to, { info })) };
    } catch (error) {
      // After a failed transaction the session's state is unknown (MAIL FROM may still be open): drop it.
      lease.release(false);
      const results = toRecipientResults(envelope.to, { error: error as SmtpError });
      return { connected: true, results: withTls(results) };
    }
  }

  /**
   * The recipients `to` at one address: one transaction per envelope sender (per recipient under VERP), one
   * after another on the destination's pooled sessions; `connected` is false when no session could be had there,
   * and then the remaining envelopes share that failure rather than each waiting out a connect timeout.
   */
  const attempt = (
    destination: { domain: string; policy: DestinationPolicy },
    target: SessionTarget,
    message: OutboundMessage,
    to: string[],
  ) => sendEachEnvelope(message, to, (envelope) => transaction(destination, target, envelope, message));

  async function deliverToDomain(domain: string, recipients: string[], message: OutboundMessage) {
    const route = await resolver.resolveRoute(domain);
    if (route.kind === "failed") {
      const { status, code, response } = route;
      return recipients.map((recipient) => ({ recipient, status, ...(code ? { code } : {}), response }));
    }
    const policy = await policies.forDomain(domain, message.requireTls === true, message.tlsPolicyExempt);
    const settled: RecipientResult[] = [];
    let pending = recipients;
    let deferred: RecipientResult[] = [];
    for (const host of route.hosts) {
      // DANE (when the host's TLSA records validate) replaces the domain's policy for this host; a host
      // DNSSEC rules out, or one an enforced MTA-STS policy does not name, is never connected to.
      const forHost = await policies.forHost(policy, host.name, port);
      const hostPolicy = "policy" in forHost ? forHost.policy : policy;
      const skipped = "refused" in forHost ? forHost.refused : judgeMx(hostPolicy, host.name);
      const skip = skipped?.refusal;
      if (skipped && skip) {
        deferred = pending.map((r) => ({ ...refusedByPolicy(r, skip, skipped.outcome), mx: host.name }));
        continue;
      }
      let addresses: string[];
      try {
        addresses = await resolver.resolveAddresses(host.name);
      } catch (error) {
        deferred = pending.map((r) => ({ ...failureResult(r, { message: describe(error) }), mx: host.name }));
        continue;
      }
      const refused = addresses.flatMap((a) => guard.refusalOf(a) ?? []);
      addresses = addresses.filter((a) => guard.refusalOf(a) === undefined);
      if (addresses.length === 0) {
        // Refused addresses defer rather than bounce: an allow-list fix (or a DNS fix) lets the retry through.
        const response = refused[0]
          ? `MX host ${host.name} refused: ${refused[0]} (MAILROOM_DIRECT_ALLOWED_CIDRS)`
          : `MX host ${host.name} has no address`;
        deferred = pending.map((recipient) => ({ recipient, status: "temporary", response, mx: host.name }));
        continue;
      }
      // The addresses of one host are alternatives for reaching it; once it answers, move to the next host.
      for (const address of addresses) {
        const target = { address, port, hostname: host.name };
        const outcome = await attempt({ domain, policy: hostPolicy }, target, message, pending);
        const results = outcome.results.map((r) => ({ ...r, mx: host.name }));
        settled.push(...results.filter((r) => r.status !== "temporary"));
        deferred = results.filter((r) => r.status === "temporary");
        pending = deferred.map((r) => r.recipient);
        if (outcome.connected || pending.length === 0) break;
      }
      if (pending.length === 0) break;
    }
    return [...settled, ...deferred];
  }

  return {
    async send(message) {
      const { groups, invalid } = groupByDomain(message.envelope.to);
      const perDomain = await Promise.all(
        [...groups].map(([domain, recipients]) => deliverToDomain(domain, recipients, message)),
      );
      const byRecipient = new Map(perDomain.flat().map((r) => [r.recipient, r]));
      for (const recipient of invalid) {
        byRecipient.set(recipient, { recipient, status: "permanent", response: "recipient has no domain" });
      }
      return message.envelope.to.flatMap((recipient) => byRecipient.get(recipient) ?? []);
    },
    shaping: { snapshot: shaper.snapshot, onChange: shaper.onChange },
    close: () => pool.close(),
  };
}
