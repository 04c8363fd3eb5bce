import { generateKeyPair, type KeyObject, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import type { DkimAlgorithm } from "./types.ts";

/** A freshly generated DKIM key pair. `privateKeyDer` is PKCS#8 DER: encrypt it before it goes anywhere. */
export interface GeneratedDkimKey {
  algorithm: DkimAlgorithm;
  /** The base64 p= value for DNS. */
  publicKey: string;
  privateKeyDer: Buffer;
}

/** A decrypted key ready to sign with. Keep it in memory only. */
export interface SigningKey {
  domainName: string;
  selector: string;
  algorithm: DkimAlgorithm;
  privateKey: KeyObject;
}

export const RSA_MODULUS_BITS = 2048;
// The length of a TXT character-string is one octet (RFC 1035 §3.3.14).
const MAX_TXT_STRING_BYTES = 255;

const generateKeyPairAsync = promisify(generateKeyPair);

/**
 * Generates a DKIM key pair off the event loop (RSA-2048 takes tens of milliseconds). RSA publishes its
 * SubjectPublicKeyInfo (what OpenDKIM and every verifier accept); Ed25519 publishes the bare 32-byte key,
 * as RFC 8463 §4.2 requires.
 */
export async function generateDkimKey(algorithm: DkimAlgorithm): Promise<GeneratedDkimKey> {
  if (algorithm === "rsa") {
    const { publicKey, privateKey } = await generateKeyPairAsync("rsa", { modulusLength: RSA_MODULUS_BITS });
    return {
      algorithm,
      publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
      privateKeyDer: privateKey.export({ type: "pkcs8", format: "der" }),
    };
  }
  const { publicKey, privateKey } = await generateKeyPairAsync("ed25519");
  const jwk = publicKey.export({ format: "jwk" });
  if (!jwk.x) throw new Error("Ed25519 public key export lacks its x coordinate");
  return {
    algorithm,
    publicKey: Buffer.from(jwk.x, "base64url").toString("base64"),
    privateKeyDer: privateKey.export({ type: "pkcs8", format: "der" }),
  };
}

const SELECTOR_PREFIX: Record<DkimAlgorithm, string> = { rsa: "mr", ed25519: "mred" };

/**
 * Names a selector `mr-YYYYMM-<6 random>` (RSA) or `mred-YYYYMM-<same>` (Ed25519). The random part keeps a
 * deleted-then-recreated domain from colliding with a stale cached record; the date helps rotation.
 */
export function makeSelectors(
  algorithms: readonly DkimAlgorithm[],
  now: Date = new Date(),
): Map<DkimAlgorithm, string> {
  const month = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  // 256 % 36 = 4: the bias toward the first four characters is harmless for a non-secret name.
  const random = [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join("");
  return new Map(algorithms.map((a) => [a, `${SELECTOR_PREFIX[a]}-${month}-${random}`]));
}

/** The DNS name of a selector's key record. */
export function dkimRecordName(selector: string, domain: string): string {
  return `${selector}._domainkey.${domain}`;
}

/** The TXT value publishing a DKIM public key (RFC 6376 §3.6.1). */
export function dkimTxtValue(algorithm: DkimAlgorithm, publicKey: string): string {
  return `v=DKIM1; k=${algorithm}; p=${publicKey}`;
}

/**
 * Splits a TXT value into character-strings of at most 255 bytes, never inside a UTF-8 sequence.
 * Verifiers join them back without separators (RFC 6376 §3.6.2.2, RFC 7208 §3.3).
 */
export function splitTxtValue(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length === 0) return [""];
  const strings: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + MAX_TXT_STRING_BYTES, bytes.length);
    // Back off continuation bytes (10xxxxxx) so a multi-byte character stays whole.
    while (end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
    strings.push(bytes.subarray(start, end).toString("utf8"));
    start = end;
  }
  return strings;
}

/** The TXT value as a zone-file string list: `"first" "second"`. */
export function formatTxtForZoneFile(value: string): string {
  return splitTxtValue(value)
    .map((s) => `"${s.replace(/["\\]/g, "\\$&")}"`)
    .join(" ");
}

/** The `dkim` option of a nodemailer transport, typed here so core need not depend on nodemailer. */
export interface NodemailerDkimOptions {
  keys: { domainName: string; keySelector: string; privateKey: KeyObject }[];
}

/**
 * nodemailer's `dkim` transport/message option for a verified domain's keys. nodemailer signs
 * `rsa-sha256` with `c=relaxed/relaxed` only and silently skips a key it cannot use with RSA, so Ed25519
 * keys are left out: sign with `signMessage` (dkim-sign.ts) for Ed25519 or simple canonicalisation.
 * Several RSA keys (rotation) each add a signature.
 */
export function nodemailerDkimOptions(keys: readonly SigningKey[]): NodemailerDkimOptions | undefined {
  const rsa = keys.filter((key) => key.algorithm === "rsa");
  if (rsa.length === 0) return undefined;
  return {
    keys: rsa.map((key) => ({
      domainName: key.domainName,
      keySelector: key.selector,
      privateKey: key.privateKey,
    })),
  };
}
