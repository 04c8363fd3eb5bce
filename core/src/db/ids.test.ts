import { validate, version } from "uuid";
import { describe, expect, it } from "vitest";
import { newId } from "./ids.ts";

describe("newId", () => {
  it("makes distinct, valid, strictly increasing UUIDv7s, also within one millisecond", () => {
    const ids = Array.from({ length: 5_000 }, () => newId());
    for (const id of ids.slice(0, 50)) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("carries the creation time in its first 48 bits", () => {
    const before = Date.now();
    const id = newId();
    const ms = Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });
});
