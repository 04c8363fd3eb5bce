/** RFC 5322 §2.1.1 (and RFC 5321's 1000 octets with CRLF): no line of a message is longer than 998 octets. */
export const MAX_LINE_OCTETS = 998;

/** Messages a sink received with a line over the limit, across the whole test run of this process. */
const overlong: string[] = [];

/**
 * Records, for a message as received by an SMTP sink, each line longer than 998 octets (CRLF excluded),
 * and returns their descriptions. Every sink of the tests calls it, so every delivered message of a test
 * run is checked; `assertNoOverlongLines` fails the test file that received one.
 */
export function checkLineLengths(raw: Buffer): string[] {
  const found: string[] = [];
  let start = 0;
  let number = 1;
  while (start < raw.length) {
    const lf = raw.indexOf(0x0a, start);
    const end = lf === -1 ? raw.length : lf;
    const length = end - start - (end > start && raw[end - 1] === 0x0d ? 1 : 0);
    if (length > MAX_LINE_OCTETS) {
      const head = raw.subarray(start, Math.min(end, start + 40)).toString("latin1");
      found.push(`line ${number} has ${length} octets: ${JSON.stringify(head)}…`);
    }
    start = end + 1;
    number += 1;
  }
  overlong.push(...found);
  return found;
}

/** Throws when any message received so far had a line over 998 octets; sinks call it when they close. */
export function assertNoOverlongLines(): void {
  if (overlong.length === 0) return;
  const lines = overlong.splice(0);
  throw new Error(`delivered message(s) with lines over ${MAX_LINE_OCTETS} octets:\n${lines.join("\n")}`);
}
