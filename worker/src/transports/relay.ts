import { type SmtpError, type SmtpSendInfo, toRecipientResults } from "./results.ts";
import { createSessionPool, type SessionTarget } from "./session-pool.ts";
import { judgeHandshakeFailure, judgeSession, relayPolicy } from "./tls-policy/index.ts";
import type { MailTransport, OutboundMessage, RecipientResult } from "./types.ts";
import { sendEachEnvelope } from "./types.ts";

/** Options for handing every message to one smarthost. */
export interface RelayTransportOptions {
  /** `smtp://[user:pass@]host:port` (STARTTLS when offered) or `smtps://…` (TLS from the first byte). */
  url: string;
  /** Most connections open to the smarthost at once. */
  maxConnections: number;
  /** Name sent with EHLO; nodemailer's default (the machine's host name) when unset. */
  heloName?: string;
  /** Extra CA certificates to trust for the smarthost (a private relay); the system store otherwise. */
  ca?: string | Buffer;
  /**
   * Accept a relay certificate that does not verify (`MAILROOM_RELAY_ALLOW_UNVERIFIED_TLS`): off by default,
   * since the relay is given credentials and every message. A message with `requireTls` still needs one.
   */
  allowUnverifiedTls?: boolean;
  connectTimeoutMs?: number;
  socketTimeoutMs?: number;
}

// The pool's key: every session goes to the one smarthost.
const RELAY = "relay";

function smarthost(url: string): {
  target: SessionTarget;
  secure: boolean;
  auth?: { user: string; pass: string };
} {
  const parsed = new URL(url);
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") {
    throw new Error(`the relay URL must be smtp:// or smtps://, not ${parsed.protocol}`);
  }
  // nodemailer read connection options from a query string; none is documented, and none is dropped silently.
  if (parsed.search) throw new Error("the relay URL takes no query string (?…)");
  const secure = parsed.protocol === "smtps:";
  // An IPv6 literal comes bracketed in a URL.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = parsed.port ? Number(parsed.port) : secure ? 465 : 587;
  const user = decodeURIComponent(parsed.username);
  const pass = decodeURIComponent(parsed.password);
  return {
    target: { address: host, port, hostname: host },
    secure,
    ...(user || pass ? { auth: { user, pass } } : {}),
  };
}

/**
 * A pooled transport to a smarthost, on nodemailer's `SMTPConnection` (the layer under its pool) with the
 * signed bytes handed over as they are: no message object, no MIME stream per send (ADR 0023). The
 * smarthost's certificate is verified: unlike MX hosts it is a configured, trusted next hop, often given
 * credentials; STARTTLS is used when offered, and a login when the smarthost offers AUTH. Results are per
 * recipient, so a relay that refuses some RCPTs and accepts the rest is reported as such.
 */
export function createRelayTransport(options: RelayTransportOptions): MailTransport {
  const { target, secure, auth } = smarthost(options.url);
  const timeout = options.connectTimeoutMs ?? 15_000;
  const pool = createSessionPool({
    maxSessionsPerDomain: options.maxConnections,
    connection: () => ({
      host: target.address,
      port: target.port,
      secure,
      ...(options.heloName ? { name: options.heloName } : {}),
      // Refused during the handshake, before AUTH could send the relay's credentials to an impostor.
      tls: { rejectUnauthorized: !options.allowUnverifiedTls, ...(options.ca ? { ca: options.ca } : {}) },
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: options.socketTimeoutMs ?? 60_000,
    }),
    ...(auth ? { auth } : {}),
    // Below the 5 minutes RFC 5321 asks a server to wait, so the relay does not close a session under us.
    idleTimeoutMs: 4 * 60_000,
    maxMessagesPerSession: 1000,
  });

  type Outcome = { info: SmtpSendInfo } | { error: SmtpError };
  type Attempt = { outcome: Outcome; lost: boolean; connected: boolean; tls?: RecipientResult["tls"] };

  /** One transaction on a pooled session; `lost` when the session ended without an SMTP reply. */
  async function attempt(
    envelope: { from: string; to: string[] },
    message: OutboundMessage,
  ): Promise<Attempt> {
    const policy = relayPolicy(target.hostname, message.requireTls === true);
    let lease: Awaited<ReturnType<typeof pool.acquire>>;
    try {
      lease = await pool.acquire(RELAY, target);
    } catch (error) {
      const tls = judgeHandshakeFailure(policy, target, error as SmtpError);
      return {
        outcome: { error: error as SmtpError },
        lost: false,
        connected: false,
        ...(tls ? { tls } : {}),
      };
    }
    const { outcome: tls, refusal } = judgeSession(policy, target, lease.tls);
    if (refusal) {
      lease.release(true);
      return { outcome: { error: { message: refusal } }, lost: false, connected: true, tls };
    }
    try {
      const info = await lease.send(envelope, message);
      lease.release(true);
      return { outcome: { info: info as unknown as SmtpSendInfo }, lost: false, connected: true, tls };
    } catch (caught) {
      // After a failed transaction the session's state is unknown (MAIL FROM may still be open): drop it.
      lease.release(false);
      const error = caught as SmtpError;
      return { outcome: { error }, lost: error.responseCode === undefined, connected: true, tls };
    }
  }

  return {
    async send(message) {
      // One transaction per envelope sender (per recipient under VERP), one after another on pooled sessions.
      const { results } = await sendEachEnvelope(message, message.envelope.to, async (envelope) => {
        let tried = await attempt(envelope, message);
        // A session lost mid-send (e.g. an idle one the relay had just closed) is tried once more on a new
        // one, as nodemailer's pool did (maxRequeues 1); a second loss is reported and the delivery's own
        // retry takes over rather than hammering a failing relay.
        if (tried.lost) tried = await attempt(envelope, message);
        const results = toRecipientResults(envelope.to, tried.outcome);
        const { tls } = tried;
        return { connected: tried.connected, results: tls ? results.map((r) => ({ ...r, tls })) : results };
      });
      const byRecipient = new Map(results.map((r) => [r.recipient, r]));
      return message.envelope.to.flatMap((recipient) => byRecipient.get(recipient) ?? []);
    },
    close: () => pool.close(),
  };
}
