import { describe, expect, it } from "vitest";
import { mxMatches, parseStsPolicy, stsRecordId } from "./sts-policy.ts";

describe("the _mta-sts TXT record (RFC 8461 §3.1)", () => {
  it("gives the id of the one STSv1 record, its character-strings joined", () => {
    expect(stsRecordId([["v=STSv1; id=2026", "1128;"]])).toBe("20261128");
    expect(stsRecordId([["v=spf1 -all"], ["v=STSv1;id=abc"]])).toBe("abc");
  });

  it("gives none for no record, two records, a missing or malformed id", () => {
    expect(stsRecordId([])).toBeUndefined();
    expect(stsRecordId([["v=STSv1; id=a;"], ["v=STSv1; id=b;"]])).toBeUndefined();
    expect(stsRecordId([["v=STSv1;"]])).toBeUndefined();
    expect(stsRecordId([["v=STSv1; id=has-dash;"]])).toBeUndefined();
    expect(stsRecordId([["v=STSv10; id=a;"]])).toBeUndefined();
  });
});

describe("the policy body (RFC 8461 §3.2)", () => {
  it("parses mode, every mx and max_age, CRLF or LF", () => {
    const policy = parseStsPolicy(
      "version: STSv1\r\nmode: enforce\r\nmx: mx1.a.test\nmx: *.A.test.\nmax_age: 604800\n",
    );
    expect(policy).toMatchObject({ mode: "enforce", mx: ["mx1.a.test", "*.a.test"], maxAgeSeconds: 604800 });
    expect(policy.lines).toEqual([
      "version: STSv1",
      "mode: enforce",
      "mx: mx1.a.test",
      "mx: *.A.test.",
      "max_age: 604800",
    ]);
  });

  it("caps max_age at a year", () => {
    expect(parseStsPolicy("version: STSv1\nmode: none\nmax_age: 99999999\n").maxAgeSeconds).toBe(31_557_600);
  });

  it.each([
    ["a wrong version", "version: STSv2\nmode: enforce\nmx: a.test\nmax_age: 1\n", /version/],
    ["an unknown mode", "version: STSv1\nmode: strict\nmx: a.test\nmax_age: 1\n", /mode/],
    ["no max_age", "version: STSv1\nmode: enforce\nmx: a.test\n", /max_age/],
    ["no mx under enforce", "version: STSv1\nmode: enforce\nmax_age: 1\n", /no mx/],
    ["an HTML page", "<html><body>hi</body></html>", /without a key/],
  ])("refuses %s", (_, body, reason) => {
    expect(() => parseStsPolicy(body)).toThrow(reason);
  });
});

describe("MX patterns (RFC 8461 §4.1)", () => {
  const policy = parseStsPolicy("version: STSv1\nmode: enforce\nmx: mx.a.test\nmx: *.b.test\nmax_age: 1\n");

  it("matches exact names and one left-most label under a wildcard, case and final dot aside", () => {
    expect(mxMatches(policy, "MX.a.test.")).toBe(true);
    expect(mxMatches(policy, "mx1.b.test")).toBe(true);
  });

  it("does not match other names, two labels under a wildcard, or the wildcard's own domain", () => {
    expect(mxMatches(policy, "mx2.a.test")).toBe(false);
    expect(mxMatches(policy, "x.mx1.b.test")).toBe(false);
    expect(mxMatches(policy, "b.test")).toBe(false);
  });
});
