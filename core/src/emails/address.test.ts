import { describe, expect, it } from "vitest";
import { formatMailbox, parseAddress, parseMailbox } from "./address.ts";

describe("addresses", () => {
  it.each([
    ["user@example.com", "user@example.com"],
    ["first.last+tag@Sub.Example.COM", "first.last+tag@sub.example.com"],
    ["user@bücher.example", "user@xn--bcher-kva.example"],
    // RFC 6531: a UTF-8 local part, for next hops that offer SMTPUTF8.
    ["josé@example.com", "josé@example.com"],
    ["用户@例子.example", "用户@xn--fsqu00a.example"],
  ])("accepts %s", (input, expected) => {
    expect(parseAddress(input)).toBe(expected);
  });

  it.each([
    "",
    "plain",
    "@example.com",
    "user@",
    "user@localhost",
    "user@example.123",
    "a..b@example.com",
    ".a@example.com",
    "user@-example.com",
    "user@example.com\r\nBcc: victim@example.com",
    `${"a".repeat(65)}@example.com`,
    "us er@example.com",
    "jo\u0085sé@example.com",
  ])("rejects %j", (input) => {
    expect(parseAddress(input)).toBeUndefined();
  });

  it("parses display names, quoted or not", () => {
    expect(parseMailbox("Acme Billing <billing@acme.test>")).toEqual({
      name: "Acme Billing",
      address: "billing@acme.test",
    });
    expect(parseMailbox('"Acme, Inc." <billing@acme.test>')).toEqual({
      name: "Acme, Inc.",
      address: "billing@acme.test",
    });
    expect(parseMailbox("billing@acme.test")).toEqual({ address: "billing@acme.test" });
    expect(parseMailbox("Zoë <zoe@bücher.example>")).toEqual({
      name: "Zoë",
      address: "zoe@xn--bcher-kva.example",
    });
  });

  it("refuses header injection and malformed mailboxes", () => {
    expect(parseMailbox("Evil\r\nBcc: x@y.test <a@b.test>")).toBeUndefined();
    expect(parseMailbox("Evil <a@b.test>\n")).toBeUndefined();
    expect(parseMailbox("a <b> <c@d.test>")).toBeUndefined();
    expect(parseMailbox('"unterminated <a@b.test>')).toBeUndefined();
  });

  it("formats a mailbox that parses back to itself", () => {
    const mailbox = { name: 'Quote " and \\ backslash', address: "a@b.test" };
    expect(parseMailbox(formatMailbox(mailbox))).toEqual(mailbox);
  });
});
