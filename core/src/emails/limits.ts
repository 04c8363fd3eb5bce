import { MailroomError } from "../errors/index.ts";

// The limits of an email, shared by the API's normaliser (send-request.ts), the SMTP door
// (submitted-message.ts) and the API's JSON schemas.
export const MAX_RECIPIENTS = 50;
export const MAX_HEADERS = 50;
export const MAX_ATTACHMENTS = 20;
export const MAX_TAGS = 20;
/**
 * The longest header value (custom headers, subject) that is always delivered within RFC 5322's 998-character
 * line: a value with no whitespace cannot be folded, so it goes alone on a continuation line after one space.
 */
export const MAX_HEADER_VALUE_LENGTH = 997;
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

/** A validation error that names the field. */
export const invalid = (field: string, message: string) =>
  new MailroomError("validation_error", `${field}: ${message}`);

// biome-ignore lint/suspicious/noControlCharactersInRegex: CR, LF and NUL in a header value would inject headers
export const HEADER_BREAK = /[\r\n\u0000]/;
