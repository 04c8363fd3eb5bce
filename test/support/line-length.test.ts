import { describe, expect, it } from "vitest";
import { assertNoOverlongLines, checkLineLengths } from "./line-length.ts";

describe("the delivered-line check every SMTP sink runs", () => {
  it("passes 998-octet lines and reports a 999-octet one, then fails the file at close", () => {
    expect(checkLineLengths(Buffer.from(`Subject: x\r\n${"a".repeat(998)}\r\nb\r\n`))).toEqual([]);
    expect(() => assertNoOverlongLines()).not.toThrow();
    const found = checkLineLengths(Buffer.from(`A: b\r\n ${"a".repeat(998)}\r\n\r\nbody`));
    expect(found).toEqual([expect.stringMatching(/^line 2 has 999 octets/)]);
    expect(() => assertNoOverlongLines()).toThrow(/lines over 998 octets:\nline 2 has 999 octets/);
    expect(() => assertNoOverlongLines()).not.toThrow();
  });

  it("counts octets, not characters, and a last line without CRLF", () => {
    expect(checkLineLengths(Buffer.from("é".repeat(500)))).toHaveLength(1);
    expect(() => assertNoOverlongLines()).toThrow(/line 1 has 1000 octets/);
  });
});
