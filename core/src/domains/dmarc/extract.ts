import { gunzipSync, inflateRawSync } from "node:zlib";
import { Unzip, type UnzipDecoder, UnzipPassThrough } from "fflate";
import { simpleParser } from "mailparser";
import { DmarcReportError, MAX_XML_BYTES } from "./parse.ts";

// Receivers send one report per message: a zip with more entries than this is not one.
const MAX_ZIP_ENTRIES = 4;
// By type, or by name when the type says nothing (some receivers send application/octet-stream): a
// bounce's own attachments (an auto-reply's PDF, say) must not be taken for a report.
const REPORT_TYPE = /^(application\/(gzip|x-gzip|zip|x-zip|x-zip-compressed|xml)|text\/xml)$/i;
const REPORT_NAME = /\.(xml|xml\.gz|gz|zip)$/i;

const tooLarge = () =>
  new DmarcReportError("too_large", `The report is larger than ${MAX_XML_BYTES} bytes uncompressed.`);

/** zlib's own output limit, so a bomb stops at MAX_XML_BYTES whatever its headers claim. */
function bounded<T>(inflate: () => T): T {
  try {
    return inflate();
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw new DmarcReportError("bad_archive", "The compressed report is damaged.");
  }
}

/**
 * fflate reads the zip's structure; the inflating is zlib's, with its output limit (fflate's own inflate
 * would allocate whatever the entry expands to before anyone could count it).
 */
class BoundedInflate implements UnzipDecoder {
  static compression = 8;
  ondata: UnzipDecoder["ondata"] = () => {};
  private readonly chunks: Uint8Array[] = [];
  push(chunk: Uint8Array, final: boolean): void {
    this.chunks.push(chunk);
    if (!final) return;
    try {
      const out = bounded(() =>
        inflateRawSync(Buffer.concat(this.chunks), { maxOutputLength: MAX_XML_BYTES }),
      );
      this.ondata(null, out, true);
    } catch (error) {
      this.ondata(error as Error & { code: number }, new Uint8Array(), true);
    }
  }
}

function unzipOne(data: Buffer): Buffer {
  const entries: { name: string; parts: Uint8Array[]; error?: unknown; done: boolean }[] = [];
  const unzip = new Unzip((file) => {
    if (entries.length >= MAX_ZIP_ENTRIES) throw new DmarcReportError("bad_archive", "Too many entries.");
    const entry = { name: file.name, parts: [] as Uint8Array[], error: undefined as unknown, done: false };
    entries.push(entry);
    let size = 0;
    file.ondata = (error, chunk, final) => {
      if (error) entry.error = error;
      size += chunk?.length ?? 0;
      if (size > MAX_XML_BYTES) entry.error = tooLarge();
      else if (chunk) entry.parts.push(chunk);
      entry.done ||= final;
    };
    file.start();
  });
  unzip.register(UnzipPassThrough);
  unzip.register(BoundedInflate);
  try {
    unzip.push(data, true);
  } catch (error) {
    if (error instanceof DmarcReportError) throw error;
    throw new DmarcReportError("bad_archive", "The zip archive is damaged.");
  }
  const entry = entries.find((e) => /\.xml$/i.test(e.name)) ?? entries[0];
  if (!entry?.done) throw new DmarcReportError("bad_archive", "The zip holds no report.");
  if (entry.error instanceof DmarcReportError) throw entry.error;
  if (entry.error) throw new DmarcReportError("bad_archive", "The zip archive is damaged.");
  return Buffer.concat(entry.parts);
}

/** The report's XML from an attachment: gzip and zip are told apart by their magic bytes, not their names. */
export function decompressReport(data: Buffer): Buffer {
  if (data[0] === 0x1f && data[1] === 0x8b) {
    return bounded(() => gunzipSync(data, { maxOutputLength: MAX_XML_BYTES }));
  }
  if (data.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return unzipOne(data);
  if (data.length > MAX_XML_BYTES) throw tooLarge();
  return data;
}

/**
 * The DMARC aggregate report a message carries, compressed or not, or undefined when the message is not
 * one (a bounce, a complaint, anything else): RFC 7489 section 7.2.1.1 sends the report as the message's
 * body or as an attachment of an XML, gzip or zip type. Multipart/report messages are DSNs and ARF.
 */
export async function findReportPayload(raw: Buffer): Promise<Buffer | undefined> {
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  const type = mail.headers.get("content-type");
  const top = typeof type === "object" && type && "value" in type ? String(type.value) : "";
  if (/^multipart\/report$/i.test(top)) return undefined;
  const attachment = mail.attachments.find(
    (a) => REPORT_TYPE.test(a.contentType) || REPORT_NAME.test(a.filename ?? ""),
  );
  return attachment?.content;
}
