/** RFC 5322 §2.1.1: at most 998 characters on a line, CRLF excluded. */
export const MAX_LINE_LENGTH = 998;

const CRLF = Buffer.from("\r\n");

/**
 * Checks a submitted message's bytes chunk by chunk as DATA arrives and returns them with bare LF line ends
 * made CRLF, so that what is stored is what the worker can relay unchanged (and DKIM-sign) to a strict
 * receiver. It accepts what Postfix accepts (`smtpd_forbid_bare_newline = normalize`): a bare LF ends a line,
 * and 8-bit bytes need no BODY=8BITMIME (the worker converts them to a 7-bit transfer encoding for a next hop
 * without 8BITMIME). Only `<CRLF>.<CRLF>` ends DATA (smtp-server's parser), so a `<LF>.<LF>` stays content and
 * leaves dot-stuffed: no SMTP smuggling. It refuses what no client sends and what would be read two ways:
 * NUL bytes, a CR that is not part of a CRLF, and lines over 998 characters. Only the first problem is kept;
 * the rest of the data is still read, so the reply comes after the client's final dot.
 */
export class MessageCheck {
  problem: string | undefined;
  private lineLength = 0;
  private lastWasCr = false;

  /** The chunk with its bare LFs made CRLF; its problem, if any, is kept in `problem`. */
  update(chunk: Buffer): Buffer {
    const bareLf: number[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (this.lastWasCr && byte !== 0x0a) this.fail("a bare CR: lines must end with CRLF");
      if (byte === 0x0d) {
        this.lastWasCr = true;
        continue;
      }
      if (byte === 0x0a) {
        if (!this.lastWasCr) bareLf.push(i);
        this.lastWasCr = false;
        this.lineLength = 0;
        continue;
      }
      if (byte === 0) this.fail("a NUL byte");
      if (++this.lineLength > MAX_LINE_LENGTH) {
        this.fail(`a line longer than ${MAX_LINE_LENGTH} characters (RFC 5322 §2.1.1)`);
      }
    }
    if (bareLf.length === 0) return chunk;
    const parts: Buffer[] = [];
    let from = 0;
    for (const at of bareLf) {
      parts.push(chunk.subarray(from, at), CRLF);
      from = at + 1;
    }
    parts.push(chunk.subarray(from));
    return Buffer.concat(parts);
  }

  private fail(problem: string): void {
    this.problem ??= `The message contains ${problem}.`;
  }
}
