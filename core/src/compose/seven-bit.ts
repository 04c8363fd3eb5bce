import { isAscii } from "node:buffer";
import { domainToASCII } from "node:url";
import { type SplitChunk, type SplitNode, Splitter } from "mailsplit";
import addressparser from "nodemailer/lib/addressparser";
import * as base64 from "nodemailer/lib/base64";
import { encodeWord, encodeWords, foldLines } from "nodemailer/lib/mime-funcs";
import { quotedPrintable } from "./render.ts";

/** Where a message has 8-bit bytes: in its top-level header block, and anywhere after it. */
interface EightBit {
  headers: boolean;
  body: boolean;
}

// Node's SIMD check: run over every outgoing message, most of which are 7-bit.
const has8bit = (bytes: Buffer) => !isAscii(bytes);

/** Which parts of a message hold 8-bit bytes; what the transport weighs against the next hop's EHLO. */
export function eightBitOf(raw: Buffer): EightBit {
  const end = raw.indexOf("\r\n\r\n");
  const split = end < 0 ? raw.length : end + 4;
  return { headers: has8bit(raw.subarray(0, split)), body: has8bit(raw.subarray(split)) };
}

// Headers whose value is a list of addresses: only their display names can be encoded-words (RFC 2047 §5).
const ADDRESS_HEADERS = new Set([
  "from",
  "sender",
  "reply-to",
  "to",
  "cc",
  "bcc",
  "resent-from",
  "resent-sender",
  "resent-to",
  "resent-cc",
  "disposition-notification-to",
]);

type Address = { name?: string; address?: string; group?: Address[] };

function encodeAddress(entry: Address): string {
  const name = entry.name
    ? has8bit(Buffer.from(entry.name))
      ? encodeWord(entry.name, "Q", 52)
      : JSON.stringify(entry.name)
    : "";
  if (entry.group) return `${name}: ${entry.group.map(encodeAddress).join(", ")};`;
  // A UTF-8 local part has no 7-bit form (RFC 6531 §3.2): it stays, and the domain goes to punycode.
  const address = entry.address ?? "";
  const at = address.lastIndexOf("@");
  const ascii =
    at < 0
      ? address
      : `${address.slice(0, at)}@${domainToASCII(address.slice(at + 1)) || address.slice(at + 1)}`;
  return name ? `${name} <${ascii}>` : `<${ascii}>`;
}

/** A header line with UTF-8 bytes (RFC 6532) as RFC 2047 encoded-words, folded; other lines as they are. */
function sevenBitHeader(key: string, line: string): string {
  if (!has8bit(Buffer.from(line, "latin1"))) return line;
  const text = Buffer.from(line, "latin1").toString("utf8");
  const colon = text.indexOf(":");
  const name = text.slice(0, colon);
  const value = text
    .slice(colon + 1)
    .replace(/\r?\n[ \t]/g, " ")
    .trim();
  const encoded = ADDRESS_HEADERS.has(key)
    ? (addressparser(value) as Address[]).map(encodeAddress).join(", ")
    : encodeWords(value, "Q", 52);
  // Back to the block's latin1-per-byte form: a UTF-8 local part left in it keeps its UTF-8 bytes.
  return Buffer.from(foldLines(`${name}: ${encoded}`, 76), "utf8").toString("latin1");
}

const IDENTITY = new Set(["", "7bit", "8bit", "binary"]);

function headerBlock(node: SplitNode, encoding?: string): string {
  const lines = node.headers
    .getList()
    .filter((h) => encoding === undefined || h.key !== "content-transfer-encoding")
    .map((h) => sevenBitHeader(h.key, h.line));
  if (encoding) lines.push(`Content-Transfer-Encoding: ${encoding}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** A leaf's body in 7 bits, and the transfer encoding that says so; undefined when it is 7-bit already. */
async function sevenBitBody(
  node: SplitNode,
  body: Buffer,
): Promise<{ body: Buffer; encoding: string } | undefined> {
  if (!IDENTITY.has(node.encoding) || !has8bit(body)) return undefined;
  const type = node.contentType || "text/plain";
  // A message may only travel as 7bit or 8bit text (RFC 2046 §5.2): its own parts are converted instead.
  if (/^message\/(rfc822|global)$/.test(type)) return { body: await toSevenBit(body), encoding: "7bit" };
  if (type.startsWith("text/"))
    return { body: Buffer.from(quotedPrintable(body), "latin1"), encoding: "quoted-printable" };
  return { body: Buffer.from(`${base64.wrap(base64.encode(body), 76)}\r\n`, "latin1"), encoding: "base64" };
}

async function chunksOf(raw: Buffer): Promise<SplitChunk[]> {
  const chunks: SplitChunk[] = [];
  const splitter = new Splitter();
  splitter.on("data", (chunk: SplitChunk) => chunks.push(chunk));
  await new Promise<void>((resolve, reject) => {
    splitter.once("end", resolve);
    splitter.once("error", reject);
    splitter.end(raw);
  });
  return chunks;
}

/**
 * The message for a next hop that offers no 8BITMIME (or no SMTPUTF8, which UTF-8 header fields need, RFC
 * 6532): every 8-bit leaf gets a 7-bit transfer encoding (quoted-printable for text, base64 otherwise, an
 * attached message converted part by part), and UTF-8 header fields become RFC 2047 encoded-words. Only a
 * UTF-8 local part in an address header stays 8-bit: it has no 7-bit form. Made before DKIM signing, so
 * the signature covers the bytes that travel. Parsed with mailsplit; untouched parts keep their bytes.
 */
export async function toSevenBit(raw: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  let node: SplitNode | undefined;
  let body: Buffer[] = [];
  const flush = async () => {
    if (!node) return;
    const whole = Buffer.concat(body);
    const converted = node.multipart ? undefined : await sevenBitBody(node, whole);
    out.push(Buffer.from(headerBlock(node, converted?.encoding), "latin1"), converted?.body ?? whole);
    node = undefined;
    body = [];
  };
  for (const chunk of await chunksOf(raw)) {
    if (chunk.type === "node") {
      await flush();
      node = chunk;
    } else if (chunk.type === "body") {
      body.push(chunk.value);
    } else {
      await flush();
      out.push(chunk.value);
    }
  }
  await flush();
  return Buffer.concat(out);
}
