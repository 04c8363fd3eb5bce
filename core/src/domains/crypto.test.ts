import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DecryptionError, decryptSecret, encryptSecret, generateKek } from "./crypto.ts";

const SECRET = Buffer.from("-----BEGIN PRIVATE KEY-----\nMIIEvQ-not-a-real-key\n-----END PRIVATE KEY-----\n");

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("envelope encryption", () => {
  it("round-trips and never contains the plaintext", () => {
    const kek = generateKek();
    const envelope = encryptSecret(kek, SECRET, "row-1");
    expect(envelope[0]).toBe(1);
    expect(envelope.includes(SECRET.subarray(0, 16))).toBe(false);
    expect(envelope.length).toBe(1 + 4 + 12 + 16 + SECRET.length);
    expect(decryptSecret(kek, envelope, "row-1").equals(SECRET)).toBe(true);
  });

  it("uses a fresh IV each time", () => {
    const kek = generateKek();
    expect(encryptSecret(kek, SECRET, "a").equals(encryptSecret(kek, SECRET, "a"))).toBe(false);
  });

  it("rejects every flipped byte with a DecryptionError that leaks nothing", () => {
    const kek = generateKek();
    const envelope = encryptSecret(kek, SECRET, "row-1");
    for (let i = 0; i < envelope.length; i++) {
      const tampered = Buffer.from(envelope);
      tampered[i] = (tampered[i] ?? 0) ^ 0x01;
      const error = errorOf(() => decryptSecret(kek, tampered, "row-1"));
      expect(error).toBeInstanceOf(DecryptionError);
      expect(error.message).not.toContain("PRIVATE");
    }
  });

  it("tells a wrong KEK, a moved ciphertext, a truncation and an unknown version apart", () => {
    const kek = generateKek();
    const envelope = encryptSecret(kek, SECRET, "row-1");
    expect(errorOf(() => decryptSecret(generateKek(), envelope, "row-1")).message).toMatch(
      /different key-encryption key/,
    );
    expect(errorOf(() => decryptSecret(kek, envelope, "row-2")).message).toMatch(/altered or moved/);
    expect(errorOf(() => decryptSecret(kek, envelope.subarray(0, 20), "row-1")).message).toMatch(
      /format version/,
    );
    const v2 = Buffer.from(envelope);
    v2[0] = 2;
    expect(errorOf(() => decryptSecret(kek, v2, "row-1")).message).toMatch(/format version/);
  });

  it("refuses a KEK that is not 32 bytes", () => {
    expect(() => encryptSecret(randomBytes(16), SECRET, "x")).toThrow(RangeError);
  });
});
