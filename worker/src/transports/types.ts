import type { TlsOutcome, TlsPolicyExemption } from "@mailroom/core/tls-reports";
import type { ShapingView } from "./shaping/destinations.ts";

/**
 * A message ready for the wire: the envelope and the exact (already DKIM-signed) bytes to hand over. The
 * envelope sender may differ per recipient (a VERP address naming the recipient): recipients sharing one
 * share an SMTP transaction, the others each get their own (`envelopesOf`).
 */
export interface OutboundMessage {
  envelope: { from: (recipient: string) => string; to: string[] };
  raw: Buffer;
  /** The `Message-ID` header value, carried for logs and for recognising a repeated handover. */
  messageId: string;
  /** Where `raw` has 8-bit bytes (BODY=8BITMIME, SMTPUTF8); none when absent. */
  eightBit?: { headers: boolean; body: boolean };
  /** The same message in 7 bits, signed: for a next hop without 8BITMIME or SMTPUTF8 (`next-hop.ts`). */
  sevenBit?: () => Promise<Buffer>;
  /**
   * REQUIRETLS (RFC 8689): the message leaves only over TLS whose certificate was verified (MTA-STS, or a
   * certificate valid for the MX or relay name); otherwise it is deferred with that reason, then fails.
   */
  requireTls?: boolean;
  /**
   * The recipient domains' MTA-STS and DANE are not applied (a TLS report, RFC 8460 §5.3; `TLS-Required: No`,
   * RFC 8689 §5): STARTTLS when offered, any certificate, else plain; each session still judged and reported.
   */
  tlsPolicyExempt?: TlsPolicyExemption;
  /** Which attempt of the email this is (1 for the first): the simulator's soft-bounced@ fails only the first. */
  attempt?: number;
}

/**
 * What happened to one recipient. `temporary` is worth retrying (4xx, connection or DNS trouble);
 * `permanent` is not (5xx, null MX, a domain that does not exist).
 */
export interface RecipientResult {
  recipient: string;
  status: "accepted" | "temporary" | "permanent";
  /** The SMTP reply code, when a server gave one. */
  code?: number;
  /** The server's reply, or a description of the local failure (refused connection, DNS error). */
  response: string;
  /** The MX host that gave this outcome (direct delivery only). */
  mx?: string;
  /** How the session's TLS met the receiver's policy, when a session was attempted. */
  tls?: TlsOutcome;
  /** Deferred without being tried: its destination was backed off or had no slot in time (`shaping/`). */
  untried?: true;
  /** The shaping destination of the transaction (`group:<name>`, `host:<mx>`; direct delivery only). */
  destination?: string;
}

/** Sends messages and reports per recipient; never throws for an SMTP or network failure. */
export interface MailTransport {
  send(message: OutboundMessage): Promise<RecipientResult[]>;
  /**
   * Called once the attempt's outcome is recorded: what the next hop does later (a simulated DSN, complaint
   * or auto-reply arriving after the 250, `simulator/`) starts only from a recorded state.
   */
  afterRecord?(message: OutboundMessage, results: readonly RecipientResult[]): Promise<void>;
  /** Each destination's shaping state (direct delivery), which the worker publishes (ADR 0066). */
  shaping?: ShapingView;
  /** Closes idle pooled connections at once and busy ones when their transaction ends; later sends fail. */
  close(): Promise<void>;
}

/** The message's SMTP transactions: its recipients grouped by envelope sender, in the order given. */
export function envelopesOf(
  message: OutboundMessage,
  recipients: readonly string[] = message.envelope.to,
): { from: string; to: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const recipient of recipients) {
    const from = message.envelope.from(recipient);
    const group = groups.get(from);
    if (group) group.push(recipient);
    else groups.set(from, [recipient]);
  }
  return [...groups].map(([from, to]) => ({ from, to }));
}

/** One transaction's outcome as a transport reports it: its recipients' results, and whether it had a session. */
export interface EnvelopeOutcome {
  connected: boolean;
  results: RecipientResult[];
}

/**
 * Runs the transactions of `recipients` one after another (`envelopesOf`). Once one finds no session (the
 * relay or MX address cannot be reached), the envelopes after it share that failure instead of each waiting
 * out a connect timeout. `connected` is true when any transaction had a session.
 */
export async function sendEachEnvelope(
  message: OutboundMessage,
  recipients: readonly string[],
  transaction: (envelope: { from: string; to: string[] }) => Promise<EnvelopeOutcome>,
): Promise<EnvelopeOutcome> {
  const results: RecipientResult[] = [];
  let connected = false;
  let unreachable: RecipientResult | undefined;
  for (const envelope of envelopesOf(message, recipients)) {
    if (unreachable) {
      const failure = unreachable;
      results.push(...envelope.to.map((recipient) => ({ ...failure, recipient })));
      continue;
    }
    const outcome = await transaction(envelope);
    results.push(...outcome.results);
    connected ||= outcome.connected;
    if (!outcome.connected) unreachable = outcome.results[0];
  }
  return { connected, results };
}
