import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/**
 * The VERP envelope sender of one recipient's copy of an email:
 * `bounce+<email id, 32 hex>-<tag, 20 hex>@<return-path domain>`. The tag is an HMAC of the email id and the
 * recipient address, so a report can only name an email, and within it only the recipient, whose token
 * Mailroom issued: each recipient sees only its own Return-Path, so a co-recipient cannot forge a report
 * about another (docs/adr/0015, 0026). Lower-case hex only, because some MTAs fold the case of local parts;
 * 7 + 32 + 1 + 20 = 60 characters, within the 64 a local part may hold. Tokens issued before issue 26 tag
 * the email alone (`email:<id>`); they still verify, naming no recipient.
 */
const PREFIX = "bounce+";
const TAG_BYTES = 10;
const TOKEN = /^bounce\+([0-9a-f]{32})-([0-9a-f]{20})$/;

/** A key that signs and checks VERP tokens, derived from the key-encryption key. */
export type VerpKey = Buffer & { readonly __verpKey: unique symbol };

/**
 * Derives the VERP signing key from the key-encryption key with HKDF-SHA256 (a label of its own, so the KEK
 * itself never signs anything and the two uses cannot be confused). Every program holding the KEK derives
 * the same key: the worker that signs and the SMTP receiver that checks need no extra secret.
 */
export function deriveVerpKey(kek: Buffer): VerpKey {
  return Buffer.from(hkdfSync("sha256", kek, Buffer.alloc(0), "mailroom verp token v1", 32)) as VerpKey;
}

// A recipient's tag input cannot equal an email-level one: addresses hold no newline.
const tagInput = (compactId: string, recipient: string | undefined) =>
  recipient === undefined ? `email:${compactId}` : `email:${compactId}\nrecipient:${recipient.toLowerCase()}`;

function tagOf(key: VerpKey, compactId: string, recipient: string | undefined): Buffer {
  return createHmac("sha256", key).update(tagInput(compactId, recipient)).digest().subarray(0, TAG_BYTES);
}

const compactOf = (emailId: string) => emailId.replaceAll("-", "").toLowerCase();

/**
 * The whole VERP envelope sender for one recipient of an email (or, without a recipient, the email-level
 * token Mailroom issued before issue 26, kept for tests of such mail).
 */
export function verpAddress(
  key: VerpKey,
  emailId: string,
  returnPathDomain: string,
  recipient?: string,
): string {
  const compact = compactOf(emailId);
  return `${PREFIX}${compact}-${tagOf(key, compact, recipient).toString("hex")}@${returnPathDomain}`;
}

/** A VERP address's parts, as written; nothing is verified yet. */
export interface VerpToken {
  emailId: string;
  compact: string;
  tag: Buffer;
}

/** The email id and tag of a VERP-shaped address (bare local part or whole address, any case), unverified. */
export function parseVerpAddress(address: string): VerpToken | undefined {
  const at = address.lastIndexOf("@");
  const local = (at === -1 ? address : address.slice(0, at)).trim().replace(/^<|>$/g, "").toLowerCase();
  const match = TOKEN.exec(local);
  if (!match) return undefined;
  const [, compact = "", tag = ""] = match;
  const emailId = `${compact.slice(0, 8)}-${compact.slice(8, 12)}-${compact.slice(12, 16)}-${compact.slice(16, 20)}-${compact.slice(20)}`;
  return { emailId, compact, tag: Buffer.from(tag, "hex") };
}

/**
 * Whom a token names among the email's recipients: `{ recipient }` for a genuine per-recipient tag,
 * `{ recipient: undefined }` for a genuine email-level tag (mail sent before issue 26), undefined for a
 * forged or altered one. Every candidate is compared in constant time.
 */
export function verifyVerpToken(
  key: VerpKey,
  token: VerpToken,
  recipients: readonly string[],
): { recipient: string | undefined } | undefined {
  let found: { recipient: string | undefined } | undefined;
  for (const recipient of [...recipients, undefined]) {
    if (timingSafeEqual(tagOf(key, token.compact, recipient), token.tag)) found ??= { recipient };
  }
  return found;
}

/**
 * The email and recipient a VERP address names, when its tag is genuine for one of `recipients` (or for the
 * email alone); undefined for anything else (another shape, an altered id, a forged tag).
 */
export function readVerpAddress(
  key: VerpKey,
  address: string,
  recipients: readonly string[] = [],
): { emailId: string; recipient: string | undefined } | undefined {
  const token = parseVerpAddress(address);
  const verified = token && verifyVerpToken(key, token, recipients);
  return token && verified ? { emailId: token.emailId, recipient: verified.recipient } : undefined;
}
