import * as base64 from "nodemailer/lib/base64";
import type MimeNode from "nodemailer/lib/mime-node";
import * as qp from "nodemailer/lib/qp";

/** A MIME tree's bytes, exactly as `MimeNode#build` streams them. */
export function renderMime(root: MimeNode): Buffer {
  const chunks: Array<string | Buffer> = [];
  writeNode(root, chunks);
  // As MimeNode's LastNewline: the message ends with a line break.
  const last = chunks.findLast((c) => c.length > 0);
  const lastByte = typeof last === "string" ? last.charCodeAt(last.length - 1) : last?.at(-1);
  if (lastByte !== 0x0a) chunks.push(lastByte === 0x0d ? "\n" : "\r\n");
  // One copy into the message's buffer; strings as UTF-8, as a stream writes them.
  const raw = Buffer.allocUnsafe(chunks.reduce((n, c) => n + Buffer.byteLength(c), 0));
  let at = 0;
  for (const chunk of chunks) at += typeof chunk === "string" ? raw.write(chunk, at) : chunk.copy(raw, at);
  return raw;
}

/** One MIME node as `MimeNode#stream` writes it: headers, the encoded body, then its children. */
function writeNode(node: MimeNode, chunks: Array<string | Buffer>): void {
  const encoding = node.getTransferEncoding();
  chunks.push(`${node.buildHeaders()}\r\n\r\n`);
  const { content } = node;
  if (content) {
    if (typeof content !== "string" && !Buffer.isBuffer(content)) {
      throw new Error("a composed MIME part holds a string or a buffer");
    }
    if (encoding === "base64") chunks.push(base64.wrap(base64.encode(content), 76));
    else if (encoding === "quoted-printable") chunks.push(quotedPrintable(content));
    else chunks.push(content);
  }
  if (!node.multipart) return;
  node.childNodes.forEach((child, i) => {
    chunks.push(`${i > 0 ? "\r\n" : ""}--${node.boundary}\r\n`);
    writeNode(child, chunks);
  });
  chunks.push(`\r\n--${node.boundary}--\r\n`);
}

// nodemailer's QP encoder works through its input this many bytes at a time.
const QP_SLICE = 64 * 1024;
const isBlank = (byte: number | undefined) => byte === 0x20 || byte === 0x09;

/**
 * A text body in quoted-printable, line for line as nodemailer's `qp.Encoder` streams it: slices of 64 KiB,
 * each encoded knowing the byte after it, the trailing blanks held back to the end (a blank ending the body
 * is encoded), each slice wrapped at 76 with the unfinished last line carried into the next.
 */
export function quotedPrintable(content: string | Buffer): string {
  const bytes = typeof content === "string" ? Buffer.from(content) : content;
  let end = bytes.length;
  while (end > 0 && isBlank(bytes[end - 1])) end--;
  if (bytes.length - end > QP_SLICE) end = bytes.length;
  let done = "";
  let line = "";
  const emit = (encoded: string) => {
    const wrapped = qp.wrap(line + encoded, 76);
    const cut = wrapped.lastIndexOf("\n") + 1;
    done += wrapped.slice(0, cut);
    line = wrapped.slice(cut);
  };
  for (let start = 0; start < end; start += QP_SLICE) {
    const stop = Math.min(start + QP_SLICE, end);
    const next = stop < end ? bytes[stop] : undefined;
    // Blanks before more text on the same line stay literal; qp.encode alone would take them for a line end.
    const lineGoesOn = next !== undefined && next !== 0x0a && next !== 0x0d;
    let blanks = stop;
    while (lineGoesOn && blanks > start && isBlank(bytes[blanks - 1])) blanks--;
    emit(qp.encode(bytes.subarray(start, blanks)) + bytes.toString("latin1", blanks, stop));
  }
  if (end < bytes.length) emit(qp.encode(bytes.subarray(end)));
  return done + line;
}
