import { describe, expect, it } from "vitest";
import { generateKey, hashSecret, parseKey, secretMatches } from "./format.ts";

describe("key format", () => {
  it("generates mrk_<12 base62>_<32 base62> keys that parse back", () => {
    const key = generateKey();
    expect(key.fullKey).toMatch(/^mrk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    expect(parseKey(key.fullKey)).toEqual({ keyId: key.keyId, secret: key.secret });
    expect(key.secretSha256.equals(hashSecret(key.secret))).toBe(true);
  });

  it("generates distinct ids and secrets", () => {
    const keys = Array.from({ length: 200 }, generateKey);
    expect(new Set(keys.map((k) => k.keyId)).size).toBe(200);
    expect(new Set(keys.map((k) => k.secret)).size).toBe(200);
  });

  it.each([
    "",
    "mrk",
    "mrk__",
    "sk_abcdefghijkl_abcdefghijklmnopqrstuvwxyz012345",
    "mrk_abcdefghijk_abcdefghijklmnopqrstuvwxyz012345",
    "mrk_abcdefghijkl_abcdefghijklmnopqrstuvwxyz01234",
    "mrk_abcdefghijkl_abcdefghijklmnopqrstuvwxyz0123456",
    "mrk_abcdefghij-l_abcdefghijklmnopqrstuvwxyz012345",
    "MRK_abcdefghijkl_abcdefghijklmnopqrstuvwxyz012345",
    " mrk_abcdefghijkl_abcdefghijklmnopqrstuvwxyz012345",
    "mrk_abcdefghijkl_abcdefghijklmnopqrstuvwxyz012345\n",
    "mrk_abcdefghijkl_abcdefghijklmnopqrstuvwxyz01234é",
  ])("rejects malformed key %j", (value) => {
    expect(parseKey(value)).toBeUndefined();
  });

  it("compares secrets against the stored hash", () => {
    const key = generateKey();
    expect(secretMatches(key.secret, key.secretSha256)).toBe(true);
    const other = key.secret.endsWith("x") ? "y" : "x";
    expect(secretMatches(`${key.secret.slice(0, -1)}${other}`, key.secretSha256)).toBe(false);
    expect(secretMatches(key.secret, Buffer.alloc(32))).toBe(false);
  });
});
