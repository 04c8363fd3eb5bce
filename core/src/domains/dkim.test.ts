import { createPublicKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  dkimTxtValue,
  formatTxtForZoneFile,
  generateDkimKey,
  makeSelectors,
  nodemailerDkimOptions,
  type SigningKey,
  selectorsFor,
  splitTxtValue,
} from "./dkim.ts";
import { canonicalBody } from "./dkim-sign.ts";

describe("TXT splitting", () => {
  it("keeps short values whole and splits at exactly 255 bytes", () => {
    expect(splitTxtValue("v=spf1 -all")).toEqual(["v=spf1 -all"]);
    expect(splitTxtValue("a".repeat(255))).toEqual(["a".repeat(255)]);
    expect(splitTxtValue("a".repeat(256))).toEqual(["a".repeat(255), "a"]);
    expect(splitTxtValue("b".repeat(600)).map((s) => s.length)).toEqual([255, 255, 90]);
  });

  it("never cuts a UTF-8 character in two", () => {
    const value = `${"a".repeat(254)}é${"z".repeat(10)}`;
    const strings = splitTxtValue(value);
    expect(strings).toEqual(["a".repeat(254), `é${"z".repeat(10)}`]);
    expect(strings.every((s) => Buffer.byteLength(s) <= 255)).toBe(true);
  });

  it("splits a 2048-bit DKIM record into strings that join back to the value", async () => {
    const key = await generateDkimKey("rsa");
    const value = dkimTxtValue("rsa", key.publicKey);
    const strings = splitTxtValue(value);
    expect(strings.length).toBe(2);
    expect(strings.every((s) => Buffer.byteLength(s) <= 255)).toBe(true);
    expect(strings.join("")).toBe(value);
    expect(formatTxtForZoneFile(value)).toBe(`"${strings[0]}" "${strings[1]}"`);
  });
});

describe("DKIM keys", () => {
  it("publishes RSA-2048 as SubjectPublicKeyInfo", async () => {
    const key = await generateDkimKey("rsa");
    const pub = createPublicKey({ key: Buffer.from(key.publicKey, "base64"), format: "der", type: "spki" });
    expect(pub.asymmetricKeyType).toBe("rsa");
    expect(pub.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it("publishes Ed25519 as the bare 32-byte key (RFC 8463)", async () => {
    const key = await generateDkimKey("ed25519");
    expect(Buffer.from(key.publicKey, "base64").length).toBe(32);
    expect(dkimTxtValue("ed25519", key.publicKey)).toBe(`v=DKIM1; k=ed25519; p=${key.publicKey}`);
  });

  it("names selectors by month with a shared random part", () => {
    const selectors = makeSelectors(["rsa", "ed25519"], new Date("2031-04-09T00:00:00Z"));
    expect(selectors.get("rsa")).toMatch(/^mr-203104-[a-z0-9]{6}$/);
    expect(selectors.get("ed25519")).toBe(selectors.get("rsa")?.replace(/^mr-/, "mred-"));
    expect(makeSelectors(["rsa"]).get("rsa")).not.toBe(makeSelectors(["rsa"]).get("rsa"));
  });

  it("uses a caller-named selector for RSA and derives the Ed25519 one from it", () => {
    expect([...selectorsFor(["rsa", "ed25519"], "s2031")]).toEqual([
      ["rsa", "s2031"],
      ["ed25519", "s2031-ed25519"],
    ]);
    expect(selectorsFor(["rsa"], undefined).get("rsa")).toMatch(/^mr-\d{6}-[a-z0-9]{6}$/);
    expect(selectorsFor(["rsa"], "a".repeat(63)).get("rsa")).toBe("a".repeat(63));
  });

  it("refuses a named selector that is not a DNS label, the derived Ed25519 one included", () => {
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
        return "accepted";
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    for (const bad of ["", "-s", "s-", "S1", "s.1", "s_1", "s 1", "a".repeat(64)]) {
      expect(
        codeOf(() => selectorsFor(["rsa"], bad)),
        bad,
      ).toBe("validation_error");
    }
    expect(codeOf(() => selectorsFor(["rsa", "ed25519"], "a".repeat(56)))).toBe("validation_error");
    expect(codeOf(() => selectorsFor(["rsa", "ed25519"], "a".repeat(55)))).toBe("accepted");
  });

  it("gives nodemailer the RSA keys only, since its signer is RSA-only", () => {
    const keyObject = {} as SigningKey["privateKey"];
    const keys: SigningKey[] = [
      { domainName: "acme.test", selector: "mr-1", algorithm: "rsa", privateKey: keyObject },
      { domainName: "acme.test", selector: "mred-1", algorithm: "ed25519", privateKey: keyObject },
    ];
    expect(nodemailerDkimOptions(keys)).toEqual({
      keys: [{ domainName: "acme.test", keySelector: "mr-1", privateKey: keyObject }],
    });
    expect(nodemailerDkimOptions(keys.slice(1))).toBeUndefined();
  });
});

describe("body canonicalisation (RFC 6376 §3.4.5 examples)", () => {
  const body = Buffer.from(" C \r\nD \t E\r\n\r\n\r\n");
  it("simple keeps whitespace and drops trailing empty lines", () => {
    expect(canonicalBody(body, false).toString()).toBe(" C \r\nD \t E\r\n");
    expect(canonicalBody(Buffer.alloc(0), false).toString()).toBe("\r\n");
  });
  it("relaxed folds whitespace runs and trailing whitespace", () => {
    expect(canonicalBody(body, true).toString()).toBe(" C\r\nD E\r\n");
    expect(canonicalBody(Buffer.alloc(0), true).toString()).toBe("");
  });
});
