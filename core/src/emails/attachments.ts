// Attachments of a send request: what a JSON schema cannot check (base64, file names, MIME types, structure).
import { HEADER_BREAK, invalid, MAX_ATTACHMENTS } from "./limits.ts";
import type { Attachment } from "./types.ts";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const CONTENT_ID = /^[\x21-\x3b\x3d\x3f-\x7e]{1,200}$/;

/**
 * Why an attachment of a MIME structure type cannot travel as given, if it cannot. A `multipart/*` part is
 * a body of parts with its own boundary, not a file: sent as a file it arrives as base64 no client reads. A
 * `message/*` part may only travel unencoded (RFC 2046 §5.2), so only a message that is valid as text is
 * taken (`message/rfc822` or `message/global`, no NUL, lines of at most 998 characters).
 */
function structureProblem(contentType: string, content: Buffer): string | undefined {
  const type = contentType.toLowerCase();
  if (type.startsWith("multipart/")) {
    return "multipart/* cannot be attached; attach its parts, or send it as application/octet-stream";
  }
  if (!type.startsWith("message/")) return undefined;
  if (type !== "message/rfc822" && type !== "message/global") {
    return "of message/* only message/rfc822 and message/global can be attached";
  }
  const lines = content.toString("latin1").split(/\r\n|\r|\n/);
  if (content.includes(0) || lines.some((line) => line.length > 998)) {
    return "a message/rfc822 attachment must be a valid message (no NUL, lines of at most 998 characters); send other bytes as application/octet-stream";
  }
  return undefined;
}

export interface AttachmentInput {
  filename: string;
  content: string;
  contentType?: string;
  contentId?: string;
}

/** Attachments: strict base64 content, a filename without path or line breaks, a MIME type. */
export function validateAttachments(attachments: AttachmentInput[] | undefined): Attachment[] {
  if (!attachments) return [];
  if (attachments.length > MAX_ATTACHMENTS) throw invalid("attachments", `at most ${MAX_ATTACHMENTS}`);
  return attachments.map((a, i) => {
    const field = `attachments[${i}]`;
    if (HEADER_BREAK.test(a.filename) || /[/\\]/.test(a.filename) || a.filename.trim() === "") {
      throw invalid(`${field}.filename`, "a file name without path separators or line breaks");
    }
    if (!BASE64.test(a.content))
      throw invalid(`${field}.content`, "must be base64 (RFC 4648, no line breaks)");
    const contentType = a.contentType ?? "application/octet-stream";
    if (!MIME_TYPE.test(contentType))
      throw invalid(`${field}.contentType`, "must be a MIME type like image/png");
    const content = Buffer.from(a.content, "base64");
    const structure = structureProblem(contentType, content);
    if (structure) throw invalid(`${field}.contentType`, structure);
    if (a.contentId !== undefined && !CONTENT_ID.test(a.contentId)) {
      throw invalid(`${field}.contentId`, "printable characters without <, > or spaces");
    }
    return {
      filename: a.filename,
      contentType,
      contentId: a.contentId,
      content,
    };
  });
}
