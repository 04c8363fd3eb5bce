import { rootCertificates, TLSSocket } from "node:tls";
import type SMTPConnection from "nodemailer/lib/smtp-connection";

/** What a session's TLS handshake established, read once the session is open. */
export interface PeerTls {
  /** The session runs over TLS (STARTTLS or implicit TLS). */
  secure: boolean;
  /** The certificate chains to a trusted CA and is valid for the name sent as SNI (the MX or relay name). */
  authorized: boolean;
  /** Node's code for why it is not (CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, …). */
  error?: string;
  /** The certificates the server presented, leaf first, in DER: what DANE's TLSA records are matched with. */
  chain?: Buffer[];
}

function chainOf(socket: TLSSocket): Buffer[] {
  const chain: Buffer[] = [];
  let cert = socket.getPeerCertificate(true);
  while (cert?.raw && !chain.some((der) => der.equals(cert.raw))) {
    chain.push(cert.raw);
    cert = cert.issuerCertificate;
  }
  return chain;
}

/**
 * The session's TLS facts. Sessions are opened without rejecting any certificate (`rejectUnauthorized:
 * false`) and judged afterwards against the destination's policy: Node still verifies the chain and the
 * name and says so in `authorized`, so one connection setting serves opportunistic, MTA-STS, testing-mode
 * and REQUIRETLS deliveries, and a failure is reported with its exact cause rather than a handshake error.
 */
export function peerTlsOf(connection: SMTPConnection): PeerTls {
  const socket = connection._socket;
  if (!connection.secure || !(socket instanceof TLSSocket)) return { secure: false, authorized: false };
  const error = socket.authorizationError as unknown as (Error & { code?: string }) | string | null;
  const chain = chainOf(socket);
  if (socket.authorized) return { secure: true, authorized: true, chain };
  const code = typeof error === "string" ? error : (error?.code ?? error?.message ?? "unverified");
  return { secure: true, authorized: false, error: code, chain };
}

/** The CAs a certificate may chain to: the system's, plus the configured extra ones (a private PKI, tests). */
export function trustedCas(extra: readonly string[]): string[] | undefined {
  // Node's `ca` replaces its built-in store rather than adding to it.
  return extra.length > 0 ? [...rootCertificates, ...extra] : undefined;
}
