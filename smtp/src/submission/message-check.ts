/** RFC 5322 §2.1.1: at most 998 characters on a line, CRLF excluded. */
export const MAX_LINE_LENGTH = 998;

/**
 * What is wrong with a submitted message's bytes, checked chunk by chunk as DATA arrives, so that nothing is
 * accepted that the worker could not relay unchanged (and DKIM-sign) to a strict receiver: NUL bytes, a CR or
 * LF that is not part of a CRLF (the raw material of SMTP smuggling), lines over 998 characters, and 8-bit
 * bytes when the client declared neither BODY=8BITMIME nor SMTPUTF8 (RFC 6152). Only the first problem is
 * kept; the rest of the data is still read, so the reply comes after the client's final dot.
 */
export class MessageCheck {
  problem: string | undefined;
  private lineLength = 0;
  private lastWasCr = false;

  private readonly allow8bit: boolean;

  constructor(allow8bit: boolean) {
    this.allow8bit = allow8bit;
  }

  update(chunk: Buffer): void {
    if (!this.problem) this.problem = this.scan(chunk);
  }

  private scan(chunk: Buffer): string | undefined {
    for (const byte of chunk) {
      if (this.lastWasCr && byte !== 0x0a) return fault("a bare CR: lines must end with CRLF");
      if (byte === 0x0d) {
        this.lastWasCr = true;
        continue;
      }
      if (byte === 0x0a) {
        if (!this.lastWasCr) return fault("a bare LF: lines must end with CRLF (RFC 5321 §2.3.8)");
        this.lastWasCr = false;
        this.lineLength = 0;
        continue;
      }
      if (byte === 0) return fault("a NUL byte");
      if (byte >= 0x80 && !this.allow8bit) {
        return fault("8-bit data without MAIL FROM ... BODY=8BITMIME (or SMTPUTF8)");
      }
      if (++this.lineLength > MAX_LINE_LENGTH) {
        return fault(`a line longer than ${MAX_LINE_LENGTH} characters (RFC 5322 §2.1.1)`);
      }
    }
    return undefined;
  }
}

const fault = (problem: string) => `The message contains ${problem}.`;
