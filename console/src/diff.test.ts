import { describe, expect, it } from "vitest";
import { diffLines } from "./diff.ts";

describe("diffLines", () => {
  it("keeps common lines and marks removed and added ones", () => {
    expect(diffLines(["<p>", "Hi {{name}}", "</p>"], ["<p>", "Hello {{name}}", "Bye", "</p>"])).toEqual([
      [" ", "<p>"],
      ["-", "Hi {{name}}"],
      ["+", "Hello {{name}}"],
      ["+", "Bye"],
      [" ", "</p>"],
    ]);
  });

  it("handles an empty side and identical sides", () => {
    expect(diffLines([], ["a"])).toEqual([["+", "a"]]);
    expect(diffLines(["a"], [])).toEqual([["-", "a"]]);
    expect(diffLines(["a", "b"], ["a", "b"])).toEqual([
      [" ", "a"],
      [" ", "b"],
    ]);
  });

  it("lists both sides whole past its size limit instead of a quadratic table", () => {
    const many = Array.from({ length: 2001 }, (_, i) => String(i));
    const out = diffLines(many, ["x"]);
    expect(out).toHaveLength(2002);
    expect(out.at(-1)).toEqual(["+", "x"]);
  });
});
