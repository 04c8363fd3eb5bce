import { domainToASCII } from "node:url";

export interface Mailbox {
  name?: string | undefined;
  /** Local part as given, domain in ASCII (IDNs converted to punycode). */
  address: string;
}

// RFC 6531 §3.3: a local part may also hold UTF-8 (josé@…), which only a next hop offering SMTPUTF8 takes.
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\\u00a0-\\uffff-]";
const LOCAL_PART = new RegExp(`^${ATEXT}+(\\.${ATEXT}+)*$`);
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
// Control characters (CR and LF above all) would let a value inject headers.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Validates and normalises a bare address; returns undefined when it is not a deliverable address. */
export function parseAddress(value: string): string | undefined {
  if (value.length > 320 || CONTROL.test(value)) return undefined;
  const at = value.lastIndexOf("@");
  if (at <= 0 || at === value.length - 1) return undefined;
  const local = value.slice(0, at);
  // domainToASCII parses a URL host and silently drops whatever follows a `/`, `?`, `#` or `\`.
  const domain = /[/?#\\]/.test(value.slice(at + 1)) ? "" : domainToASCII(value.slice(at + 1).toLowerCase());
  if (local.length > 64 || !LOCAL_PART.test(local)) return undefined;
  if (!domain || domain.length > 253) return undefined;
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  if (/^[0-9]+$/.test(labels.at(-1) ?? "")) return undefined;
  return `${local}@${domain}`;
}

/**
 * Parses `Display Name <address>`, `"Quoted, Name" <address>` or a bare address. Returns undefined for
 * anything else, including any control character.
 */
export function parseMailbox(value: string): Mailbox | undefined {
  if (CONTROL.test(value)) return undefined;
  const trimmed = value.trim();
  const angle = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed);
  if (!angle) {
    const address = parseAddress(trimmed);
    return address ? { address } : undefined;
  }
  const address = parseAddress((angle[2] ?? "").trim());
  if (!address) return undefined;
  let name = (angle[1] ?? "").trim();
  if (name.startsWith('"')) {
    if (!name.endsWith('"') || name.length < 2) return undefined;
    name = name.slice(1, -1).replace(/\\(.)/g, "$1");
  } else if (/[<>"]/.test(name)) {
    return undefined;
  }
  if (name.length > 200) return undefined;
  return name ? { name, address } : { address };
}

/** Renders a mailbox as a header value; nodemailer encodes non-ASCII names when it builds the message. */
export function formatMailbox(mailbox: Mailbox): string {
  if (!mailbox.name) return mailbox.address;
  return `"${mailbox.name.replace(/(["\\])/g, "\\$1")}" <${mailbox.address}>`;
}

/**
 * The envelope recipients of an email's To, Cc and Bcc mailboxes: bare, lower-cased, each once, in header
 * order. Accept decides them once (mailroom_claim_emails serves them as they are) and a bounce report matches
 * against the same list, so no SQL function parses an address header.
 */
export function envelopeRecipients(mailboxes: readonly string[]): string[] {
  return [...new Set(mailboxes.map((a) => (parseMailbox(a)?.address ?? a).toLowerCase()))];
}
