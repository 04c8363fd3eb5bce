/**
 * The mailbox simulator's reserved addresses (issue 30 item 3, ADR 0049). Each local part, with an optional
 * `+label` for uniqueness, names one behaviour of a real receiving mailbox; any key may send to them.
 */
export const SIMULATOR_MAILBOXES = [
  "delivered",
  "bounced",
  "soft-bounced",
  "complained",
  "out-of-office",
  "suppressed",
  "delayed",
] as const;

export type SimulatorMailbox = (typeof SIMULATOR_MAILBOXES)[number];

const KNOWN = new Set<string>(SIMULATOR_MAILBOXES);

/**
 * What a recipient address is to the simulator on `domain`: undefined for an address elsewhere (or with the
 * simulator off); the mailbox it names; or `unknown` for another local part on the simulator domain, which
 * the simulator delivers as `delivered@` and says so in its reply (ADR 0049).
 */
export function simulatorMailboxOf(
  address: string,
  domain: string | undefined,
): SimulatorMailbox | "unknown" | undefined {
  if (domain === undefined) return undefined;
  const at = address.lastIndexOf("@");
  if (at === -1 || address.slice(at + 1).toLowerCase() !== domain) return undefined;
  const local = address.slice(0, at).toLowerCase();
  const plus = local.indexOf("+");
  const base = plus === -1 ? local : local.slice(0, plus);
  return KNOWN.has(base) ? (base as SimulatorMailbox) : "unknown";
}

/** True when the address is on the simulator domain (`domain` undefined: the simulator is off). */
export function isSimulatorAddress(address: string, domain: string | undefined): boolean {
  return simulatorMailboxOf(address, domain) !== undefined;
}

/**
 * Whether an email is simulator mail: every envelope recipient is on the simulator domain. Such an email is
 * stored with `emails.simulated = true`, the one predicate reputation figures leave out. Mail that mixes
 * simulator and real recipients is real mail: marking it would let a sender hide real bounces behind one
 * simulator address.
 */
export function isSimulatedMail(recipients: readonly string[], domain: string | undefined): boolean {
  return recipients.length > 0 && recipients.every((r) => isSimulatorAddress(r, domain));
}
