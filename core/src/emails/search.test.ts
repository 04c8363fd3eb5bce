import { describe, expect, it } from "vitest";
import { parseSearch, prefixUpperBound } from "./search.ts";

describe("the shape of a search term decides its index (ADR 0061)", () => {
  it("sorts terms into words, address prefixes, Message-IDs and tags", () => {
    expect(parseSearch("Invoice ANN@Example <Id-1@Host.test> plan:p3")).toEqual({
      words: ["% invoice%"],
      addresses: ["ann@example"],
      messageIds: [{ header: "<id-1@host.test>", id: undefined }],
      tags: [{ name: "plan", value: "p3" }],
    });
    // A bracket at one end only is dropped from an address; in a word, punctuation goes and `_` is escaped.
    expect(parseSearch("<bob@ 50%_off")).toEqual({
      words: ["% 50\\_off%"],
      addresses: ["bob@"],
      messageIds: [],
      tags: [],
    });
    const id = "01a224fe-d192-70ba-8e15-7e175705c6f8";
    expect(parseSearch(`<${id.toUpperCase()}@Elsewhere>`).messageIds).toEqual([
      { header: `<${id}@elsewhere>`, id },
    ]);
  });
});

describe("prefixUpperBound", () => {
  it("is the first string after every string with the prefix, in code point order", () => {
    expect(prefixUpperBound("ann@ex")).toBe("ann@ey");
    expect(prefixUpperBound("a\u{10ffff}")).toBe("b");
    expect(prefixUpperBound("\u{10ffff}")).toBeNull();
    expect(prefixUpperBound("a\ud7ff")).toBe("a\ue000");
    expect(prefixUpperBound("é")).toBe("ê");
  });
});
