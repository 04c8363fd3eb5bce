import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/**
 * The VERP envelope sender of an email: `bounce+<email id, 32 hex>-<tag, 20 hex>@<return-path domain>`.
 * The tag is an HMAC of the email id, so a report can only name an email whose token Mailroom issued: a
 * forged or altered token matches no email (docs/adr/0015). Lower-case hex only, because some MTAs fold the
 * case of local parts; 7 + 32 + 1 + 20 = 60 characters, within the 64 a local part may hold.
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

function tagOf(key: VerpKey, compactId: string): Buffer {
  return createHmac("sha256", key).update(`email:${compactId}`).digest().subarray(0, TAG_BYTES);
}

/** The local part (`bounce+<id>-<tag>`) naming an email. */
export function verpLocalPart(key: VerpKey, emailId: string): string {
  const compact = emailId.replaceAll("-", "").toLowerCase();
  return `${PREFIX}${compact}-${tagOf(key, compact).toString("hex")}`;
}

/** The whole VERP envelope sender for an email sent from a domain whose Return-Path domain is given. */
export function verpAddress(key: VerpKey, emailId: string, returnPathDomain: string): string {
  return `${verpLocalPart(key, emailId)}@${returnPathDomain}`;
}

/**
 * The email id a VERP address names, when its tag is genuine; undefined for anything else (another shape,
 * an altered id, a forged tag). Accepts a bare local part or a whole address, in any case.
 */
export function readVerpAddress(key: VerpKey, address: string): string | undefined {
  const at = address.lastIndexOf("@");
  const local = (at === -1 ? address : address.slice(0, at)).trim().replace(/^<|>$/g, "").toLowerCase();
  const match = TOKEN.exec(local);
  if (!match) return undefined;
  const [, compact = "", tag = ""] = match;
  if (!timingSafeEqual(tagOf(key, compact), Buffer.from(tag, "hex"))) return undefined;
  return `${compact.slice(0, 8)}-${compact.slice(8, 12)}-${compact.slice(12, 16)}-${compact.slice(16, 20)}-${compact.slice(20)}`;
}
