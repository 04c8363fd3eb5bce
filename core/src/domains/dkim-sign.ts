import { createHash, sign } from "node:crypto";
import type { SigningKey } from "./dkim.ts";

export type Canonicalization = "relaxed/relaxed" | "simple/simple" | "relaxed/simple" | "simple/relaxed";

export interface SignOptions {
  canonicalization?: Canonicalization;
  /** Signature time (t=); defaults to now. */
  now?: Date;
  /** Header fields to sign when present; defaults to DEFAULT_SIGNED_HEADERS. */
  headerNames?: readonly string[];
}

/** The fields a receiver shows or acts on: changing any of them in transit must break the signature. */
export const DEFAULT_SIGNED_HEADERS = [
  "from",
  "sender",
  "reply-to",
  "subject",
  "date",
  "message-id",
  "to",
  "cc",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
  "content-id",
  "content-description",
  "in-reply-to",
  "references",
  "list-id",
  "list-unsubscribe",
  "list-unsubscribe-post",
  "feedback-id",
] as const;

/**
 * Fields listed once more than the message has them (RFC 6376 §8.15 "over-signing"): a verifier then finds
 * the signature broken if any instance is added on the way. An added From would show another sender; an
 * added MIME-Version, Content-Type or Content-Transfer-Encoding (say on a plain message an SMTP client sent
 * without them) would change what the body means and how it is shown.
 */
export const OVER_SIGNED_HEADERS = [
  "from",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
] as const;

interface HeaderField {
  /** Lower-case field name. */
  key: string;
  /** The field exactly as written, continuation lines included, without the final CRLF. */
  raw: string;
}

function splitMessage(message: Buffer): { headers: HeaderField[]; headerBlock: string; body: Buffer } {
  // Latin-1 maps bytes 1:1 to chars, so UTF-8 header bytes survive canonicalisation untouched.
  const text = message.toString("latin1").replace(/\r?\n/g, "\r\n");
  const separator = text.indexOf("\r\n\r\n");
  const headerBlock = separator === -1 ? `${text.replace(/\r\n$/, "")}\r\n` : text.slice(0, separator + 2);
  const body = separator === -1 ? "" : text.slice(separator + 4);
  const headers: HeaderField[] = [];
  for (const line of headerBlock.split("\r\n")) {
    if (line === "") continue;
    const last = headers[headers.length - 1];
    if ((line.startsWith(" ") || line.startsWith("\t")) && last) {
      last.raw += `\r\n${line}`;
    } else {
      headers.push({ key: line.slice(0, line.indexOf(":")).trim().toLowerCase(), raw: line });
    }
  }
  return { headers, headerBlock, body: Buffer.from(body, "latin1") };
}

function canonicalHeader(raw: string, relaxed: boolean): string {
  if (!relaxed) return raw;
  const colon = raw.indexOf(":");
  const value = raw
    .slice(colon + 1)
    .replace(/\r\n/g, "")
    .replace(/[ \t]+/g, " ")
    .trim();
  return `${raw.slice(0, colon).trim().toLowerCase()}:${value}`;
}

/** Canonical body per RFC 6376 §3.4.3 (simple) and §3.4.4 (relaxed). */
export function canonicalBody(body: Buffer, relaxed: boolean): Buffer {
  let text = body.toString("latin1");
  if (relaxed) text = text.replace(/[ \t]+\r\n/g, "\r\n").replace(/[ \t]+/g, " ");
  text = text.replace(/(\r\n)+$/, "");
  if (relaxed && text.length > 0 && /[ \t]$/.test(text)) text = text.replace(/[ \t]+$/, "");
  if (text.length > 0 || !relaxed) text += "\r\n";
  return Buffer.from(text, "latin1");
}

function foldBase64(value: string): string {
  return (value.match(/.{1,72}/g) ?? []).join("\r\n ");
}

interface SigningInput {
  key: SigningKey;
  /** The DKIM-Signature field up to `b=`, as it will appear in the message. */
  unsigned: string;
  /** What the key signs: RFC 8463 §3 has Ed25519 sign the SHA-256 digest of the header data. */
  bytes: Buffer;
}

function signingInputs(message: Buffer, keys: readonly SigningKey[], options: SignOptions): SigningInput[] {
  const canonicalization = options.canonicalization ?? "relaxed/relaxed";
  const [headerMode, bodyMode] = canonicalization.split("/");
  const relaxedHeaders = headerMode === "relaxed";
  const { headers, body } = splitMessage(message);
  const bodyHash = createHash("sha256")
    .update(canonicalBody(body, bodyMode === "relaxed"))
    .digest("base64");
  const wanted = new Set((options.headerNames ?? DEFAULT_SIGNED_HEADERS).map((h) => h.toLowerCase()));
  // Each listed name picks the next instance of that field from the bottom up (RFC 6376 §5.4.2); a name
  // listed once more picks none and signs that there is no further one.
  const signed = headers.filter((h) => wanted.has(h.key)).reverse();
  const names = [...signed.map((h) => h.key), ...OVER_SIGNED_HEADERS.filter((name) => wanted.has(name))];
  const time = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return keys.map((key) => {
    const tags = [
      "v=1",
      `a=${key.algorithm}-sha256`,
      `c=${canonicalization}`,
      `d=${key.domainName}`,
      `s=${key.selector}`,
      `t=${time}`,
      `h=${names.join(":")}`,
      `bh=${bodyHash}`,
    ];
    // Folding is fixed before signing: under simple canonicalisation the signed bytes are these bytes.
    const unsigned = `DKIM-Signature: ${tags.slice(0, 6).join("; ")};\r\n ${tags[6]};\r\n ${tags[7]};\r\n b=`;
    const data = `${signed.map((h) => `${canonicalHeader(h.raw, relaxedHeaders)}\r\n`).join("")}${canonicalHeader(unsigned, relaxedHeaders)}`;
    const bytes = Buffer.from(data, "latin1");
    return {
      key,
      unsigned,
      bytes: key.algorithm === "ed25519" ? createHash("sha256").update(bytes).digest() : bytes,
    };
  });
}

const digestOf = (key: SigningKey) => (key.algorithm === "ed25519" ? null : "sha256");

function signatureField(input: SigningInput, signature: Buffer): string {
  return `${input.unsigned}${foldBase64(signature.toString("base64"))}\r\n`;
}

/** Signs the message with every key; see `signMessage`. Returns just the DKIM-Signature header lines. */
export function dkimSignatureHeaders(
  message: Buffer,
  keys: readonly SigningKey[],
  options: SignOptions = {},
): string {
  return signingInputs(message, keys, options)
    .map((input) => signatureField(input, sign(digestOf(input.key), input.bytes, input.key.privateKey)))
    .join("");
}

/**
 * As `dkimSignatureHeaders`, with the private-key operations on libuv's thread pool instead of the calling
 * thread: an RSA-2048 signature costs ~1.5 ms of CPU, the largest single cost of a delivery, and this lets
 * a worker's event loop go on with other deliveries meanwhile.
 */
export async function dkimSignatureHeadersAsync(
  message: Buffer,
  keys: readonly SigningKey[],
  options: SignOptions = {},
): Promise<string> {
  const inputs = signingInputs(message, keys, options);
  const signatures = await Promise.all(
    inputs.map(
      (input) =>
        new Promise<Buffer>((resolve, reject) =>
          sign(digestOf(input.key), input.bytes, input.key.privateKey, (error, signature) =>
            error ? reject(error) : resolve(signature),
          ),
        ),
    ),
  );
  return inputs.map((input, i) => signatureField(input, signatures[i] as Buffer)).join("");
}

function prependSignatures(message: Buffer, signatures: string): Buffer {
  const { headerBlock, body } = splitMessage(message);
  return Buffer.concat([
    Buffer.from(signatures + headerBlock, "latin1"),
    Buffer.from("\r\n", "latin1"),
    body,
  ]);
}

/**
 * DKIM-signs a complete RFC 5322 message with each key (one signature per key, e.g. RSA and Ed25519 per
 * RFC 8463) and returns the signed message: the signature fields prepended, line ends normalised to CRLF.
 * Unlike nodemailer's signer it supports Ed25519 and simple canonicalisation.
 */
export function signMessage(message: Buffer, keys: readonly SigningKey[], options: SignOptions = {}): Buffer {
  return prependSignatures(message, dkimSignatureHeaders(message, keys, options));
}

/** As `signMessage`, signing on libuv's thread pool (see `dkimSignatureHeadersAsync`). */
export async function signMessageAsync(
  message: Buffer,
  keys: readonly SigningKey[],
  options: SignOptions = {},
): Promise<Buffer> {
  return prependSignatures(message, await dkimSignatureHeadersAsync(message, keys, options));
}
