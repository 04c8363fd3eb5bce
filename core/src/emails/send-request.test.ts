import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fixPropertySeedInCi } from "../../../test/support/fuzz.ts";
import { MailroomError } from "../errors/index.ts";
import { validateAttachments } from "./attachments.ts";
import { MAX_SCHEDULE_AHEAD_MS } from "./limits.ts";
import { validateHeaders, validateScheduledAt, validateTags } from "./send-request.ts";

// The same inputs on every CI run (a fresh draw elsewhere): CI does not turn red by seed.
fixPropertySeedInCi();

/** Runs fn and returns the MailroomError it throws (failing when it throws nothing or something else). */
function refusal(fn: () => unknown): MailroomError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MailroomError);
    expect((error as MailroomError).code).toBe("validation_error");
    return error as MailroomError;
  }
  throw new Error("expected a validation_error");
}

const RESERVED = [
  "From",
  "Sender",
  "To",
  "Cc",
  "Bcc",
  "Resent-Bcc",
  "Reply-To",
  "Subject",
  "Date",
  "Message-ID",
  "MIME-Version",
  "Content-Type",
  "Content-Transfer-Encoding",
  "Content-Disposition",
  "Return-Path",
  "Received",
  "DKIM-Signature",
  "ARC-Seal",
  "ARC-Message-Signature",
  "ARC-Authentication-Results",
  "Authentication-Results",
  "X-Mailroom-Category",
];

/** The same name in a random mix of upper and lower case. */
const anyCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""));

describe("validateHeaders", () => {
  it("keeps custom headers as given, and none when none are given", () => {
    expect(validateHeaders(undefined)).toEqual({});
    expect(validateHeaders({ "X-Campaign": "spring", "List-Unsubscribe": "<mailto:u@acme.test>" })).toEqual({
      "X-Campaign": "spring",
      "List-Unsubscribe": "<mailto:u@acme.test>",
    });
  });

  it("refuses every reserved header in any case, naming it", () => {
    fc.assert(
      fc.property(fc.constantFrom(...RESERVED).chain(anyCase), (name) => {
        expect(refusal(() => validateHeaders({ [name]: "v" })).message).toContain(`headers.${name}`);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses CR, LF or NUL anywhere in a value", () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom("\r", "\n", "\u0000", "\r\n"), fc.string(), (a, brk, b) => {
        expect(refusal(() => validateHeaders({ "X-A": `${a}${brk}${b}` })).message).toContain("headers.X-A");
      }),
    );
  });

  it("refuses names with spaces, colons, controls or non-ASCII, and names over 76 characters", () => {
    for (const name of ["X A", "X:A", "X\tA", "X-É", "", "X\r\nBcc", "x".repeat(77)]) {
      expect(refusal(() => validateHeaders({ [name]: "v" })).message).toContain("headers");
    }
    expect(validateHeaders({ ["X".repeat(76)]: "v" })).toEqual({ ["X".repeat(76)]: "v" });
  });

  it("refuses a name given twice in different case, values over 997 characters and more than 50 headers", () => {
    expect(refusal(() => validateHeaders({ "X-A": "1", "x-a": "2" })).message).toContain("headers.x-a");
    expect(validateHeaders({ "X-A": "v".repeat(997) })["X-A"]).toHaveLength(997);
    expect(refusal(() => validateHeaders({ "X-A": "v".repeat(998) })).message).toContain("headers.X-A");
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-${i}`, "v"]));
    expect(refusal(() => validateHeaders(many)).message).toMatch(/^headers: /);
    expect(
      Object.keys(validateHeaders(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`X-${i}`, "v"])))),
    ).toHaveLength(50);
  });
});

describe("validateAttachments", () => {
  it("decodes any base64 content to the exact bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const [a] = validateAttachments([
          { filename: "f.bin", content: Buffer.from(bytes).toString("base64") },
        ]);
        expect(a?.content.equals(Buffer.from(bytes))).toBe(true);
        expect(a?.contentType).toBe("application/octet-stream");
      }),
      { numRuns: 200 },
    );
  });

  it("accepts only strict base64: the alphabet, full quanta, padding only at the end", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."ABCab01+/=-_ \n"), maxLength: 16 }), (content) => {
        let accepted: Buffer | undefined;
        try {
          accepted = validateAttachments([{ filename: "f", content }])[0]?.content;
        } catch (error) {
          expect((error as MailroomError).message).toContain("attachments[0].content");
          return;
        }
        expect(content.length % 4).toBe(0);
        // Lenient decoders ignore junk; strict validation must not have let any through.
        expect(/^[A-Za-z0-9+/]*={0,2}$/.test(content)).toBe(true);
        const padding = content.endsWith("==") ? 2 : content.endsWith("=") ? 1 : 0;
        expect(accepted?.length).toBe((content.length / 4) * 3 - padding);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps the type and content id of an inline image", () => {
    expect(
      validateAttachments([
        { filename: "logo.png", content: "iVBORw==", contentType: "image/png", contentId: "logo@acme" },
      ]),
    ).toEqual([
      {
        filename: "logo.png",
        content: Buffer.from("iVBORw==", "base64"),
        contentType: "image/png",
        contentId: "logo@acme",
      },
    ]);
  });

  it("refuses path separators and line breaks in file names, naming the attachment", () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom("/", "\\", "\r", "\n", "\u0000"), fc.string(), (a, bad, b) => {
        const files = [
          { filename: "ok", content: "" },
          { filename: `${a}${bad}${b}`, content: "" },
        ];
        expect(refusal(() => validateAttachments(files)).message).toContain("attachments[1].filename");
      }),
    );
  });

  it("refuses content types that are not type/subtype and content ids with <, > or spaces", () => {
    for (const contentType of ["png", "image/png; charset=x", "image /png", "image/png\r\n", "/", "a/b/c"]) {
      expect(
        refusal(() => validateAttachments([{ filename: "f", content: "", contentType }])).message,
      ).toContain("attachments[0].contentType");
    }
    for (const contentId of ["<a@b>", "a b", "", "a\nb", "x".repeat(201)]) {
      expect(
        refusal(() => validateAttachments([{ filename: "f", content: "", contentId }])).message,
      ).toContain("attachments[0].contentId");
    }
  });

  it("refuses multipart/* and any message/* that is not a valid message, and keeps a valid message/rfc822", () => {
    const b64 = (text: string) => Buffer.from(text, "latin1").toString("base64");
    const eml = "From: a@b.test\r\nSubject: fwd\r\n\r\nBody\r\n";
    for (const [contentType, content] of [
      ["multipart/mixed", b64("--x\r\n\r\nhi\r\n--x--\r\n")],
      ["Multipart/Alternative", b64("x")],
      ["message/partial", b64(eml)],
      ["message/rfc822", b64(`Subject: x\r\n\r\n${"y".repeat(3000)}\r\n`)],
      ["message/rfc822", b64("Subject: x\r\n\r\nnul\u0000\r\n")],
    ] as const) {
      expect(refusal(() => validateAttachments([{ filename: "f", content, contentType }])).message).toMatch(
        /^attachments\[0\]\.contentType: /,
      );
    }
    const [kept] = validateAttachments([
      { filename: "fwd.eml", content: b64(eml), contentType: "message/rfc822" },
    ]);
    expect(kept?.content.toString()).toBe(eml);
  });

  it("refuses more than 20 attachments", () => {
    const files = Array.from({ length: 21 }, (_, i) => ({ filename: `f${i}`, content: "" }));
    expect(refusal(() => validateAttachments(files)).message).toMatch(/^attachments: /);
    expect(validateAttachments(files.slice(0, 20))).toHaveLength(20);
  });
});

describe("validateTags", () => {
  const part = fc.string({ unit: fc.constantFrom(..."abzAZ09_-"), minLength: 1, maxLength: 256 });

  it("accepts names and values of A-Z a-z 0-9 _ -", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(part, part), { maxLength: 20, selector: ([n]) => n }), (pairs) => {
        const tags = pairs.map(([name, value]) => ({ name, value }));
        expect(validateTags(tags)).toEqual(tags);
      }),
    );
  });

  it("refuses any other character in a name or a value, naming the tag", () => {
    const outside = fc.string({ minLength: 1, maxLength: 3 }).filter((s) => /[^A-Za-z0-9_-]/.test(s));
    fc.assert(
      fc.property(part, outside, fc.boolean(), (ok, bad, inName) => {
        const tag = inName ? { name: `${ok}${bad}`, value: ok } : { name: ok, value: `${bad}${ok}` };
        expect(refusal(() => validateTags([{ name: "first", value: "1" }, tag])).message).toContain(
          inName ? "tags[1].name" : "tags[1].value",
        );
      }),
    );
  });

  it("refuses empty or over-long parts, a name given twice and more than 20 tags", () => {
    expect(refusal(() => validateTags([{ name: "", value: "v" }])).message).toContain("tags[0].name");
    expect(refusal(() => validateTags([{ name: "n", value: "v".repeat(257) }])).message).toContain(
      "tags[0].value",
    );
    expect(
      refusal(() =>
        validateTags([
          { name: "n", value: "1" },
          { name: "n", value: "2" },
        ]),
      ).message,
    ).toContain("tags[1].name");
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `t${i}`, value: "v" }));
    expect(refusal(() => validateTags(many)).message).toMatch(/^tags: /);
  });
});

describe("validateScheduledAt", () => {
  const now = new Date("2030-06-01T12:00:00Z");

  it("accepts RFC 3339 times with an offset from now up to 30 days ahead", () => {
    expect(validateScheduledAt(undefined, now)).toBeUndefined();
    expect(validateScheduledAt("2030-06-01T12:00:00Z", now)).toEqual(now);
    expect(validateScheduledAt("2030-06-01T14:00:00+02:00", now)).toEqual(now);
    expect(validateScheduledAt("2030-06-02t12:00:00.123456789z", now)?.getTime()).toBe(
      Date.parse("2030-06-02T12:00:00.123Z"),
    );
    expect(validateScheduledAt("2030-07-01T12:00:00Z", now)?.getTime()).toBe(
      now.getTime() + MAX_SCHEDULE_AHEAD_MS,
    );
  });

  it("refuses the past, beyond 30 days and anything not RFC 3339 with an offset", () => {
    for (const value of [
      "2030-06-01T11:59:59Z",
      "2030-07-01T12:00:01Z",
      "2030-06-02",
      "2030-06-02T12:00:00",
      "2030-06-02T12:00Z",
      "2030-06-02T12:00:00+0200",
      "Sun, 02 Jun 2030 12:00:00 GMT",
      "1906372800000",
      "2030-02-30T12:00:00Z",
      "",
      // Date would roll these over to a real instant inside the window (June 31 -> July 1).
      "2030-06-31T12:00:00Z",
      "2030-06-01T24:00:00Z",
      "2030-06-02T12:60:00Z",
      "2030-06-02T12:00:60Z",
    ]) {
      expect(refusal(() => validateScheduledAt(value, now)).message, value).toMatch(/^scheduledAt: /);
    }
  });

  it("agrees with the bounds for any instant", () => {
    fc.assert(
      fc.property(fc.integer({ min: -5 * 86_400_000, max: 40 * 86_400_000 }), (offset) => {
        const value = new Date(now.getTime() + offset).toISOString();
        const inRange = offset >= 0 && offset <= MAX_SCHEDULE_AHEAD_MS;
        if (inRange) expect(validateScheduledAt(value, now)?.getTime()).toBe(now.getTime() + offset);
        else refusal(() => validateScheduledAt(value, now));
      }),
    );
  });
});
