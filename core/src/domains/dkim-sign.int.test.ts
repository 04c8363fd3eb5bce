import { createPrivateKey } from "node:crypto";
import { Resolver } from "node:dns/promises";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import {
  dkimRecordName,
  dkimTxtValue,
  type GeneratedDkimKey,
  generateDkimKey,
  nodemailerDkimOptions,
  type SigningKey,
  splitTxtValue,
} from "./dkim.ts";
import { type Canonicalization, signMessage, signMessageAsync } from "./dkim-sign.ts";

const DOMAIN = "acme.test";
const generated = {
  rsa: await generateDkimKey("rsa"),
  rsaNext: await generateDkimKey("rsa"),
  ed25519: await generateDkimKey("ed25519"),
};
const SELECTORS = { rsa: "mr-203101-aaaaaa", rsaNext: "mr-203102-bbbbbb", ed25519: "mred-203101-aaaaaa" };

function signingKey(selector: string, key: GeneratedDkimKey): SigningKey {
  return {
    domainName: DOMAIN,
    selector,
    algorithm: key.algorithm,
    privateKey: createPrivateKey({ key: key.privateKeyDer, format: "der", type: "pkcs8" }),
  };
}
const rsaKey = signingKey(SELECTORS.rsa, generated.rsa);
const rsaNextKey = signingKey(SELECTORS.rsaNext, generated.rsaNext);
const edKey = signingKey(SELECTORS.ed25519, generated.ed25519);

let dns: TestDnsServer;
let resolver: Resolver;

function publish(selector: string, key: GeneratedDkimKey): void {
  dns.setTxt(dkimRecordName(selector, DOMAIN), splitTxtValue(dkimTxtValue(key.algorithm, key.publicKey)));
}

beforeAll(async () => {
  dns = await startDnsServer();
  resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([dns.address]);
});
afterAll(async () => {
  await dns.close();
});
beforeEach(() => {
  publish(SELECTORS.rsa, generated.rsa);
  publish(SELECTORS.rsaNext, generated.rsaNext);
  publish(SELECTORS.ed25519, generated.ed25519);
});

interface Verdict {
  result: string;
  selector: string | undefined;
  algorithm: string | undefined;
  canonicalization: string | undefined;
}

/** mailauth, resolving through the test DNS server: the verifier shares no code with either signer. */
async function verify(message: Buffer): Promise<Verdict[]> {
  const { results } = await dkimVerify(message, {
    resolver: async (name, rr) => {
      if (rr !== "TXT") throw new Error(`unexpected ${rr} lookup for ${name}`);
      return resolver.resolveTxt(name);
    },
  });
  return results.map((r) => {
    const raw = r as unknown as { algo?: string; format?: string };
    return {
      result: r.status.result,
      selector: r.selector,
      algorithm: raw.algo,
      canonicalization: raw.format,
    };
  });
}

/** Whether each signature passed: mailauth says `fail` for a bad signature, `neutral` for a bad body hash. */
async function passes(message: Buffer): Promise<boolean[]> {
  return (await verify(message)).map((v) => v.result === "pass");
}

const LONG_WORDS = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
const MESSAGES = {
  plain: { subject: "Your receipt", text: "Thanks for your order.\n\n-- \nAcme\n" },
  "long lines": {
    subject: "Long",
    text: `${LONG_WORDS}\n${"x".repeat(3000)}\n`,
    html: `<p>${LONG_WORDS}</p>`,
  },
  "non-ASCII": { subject: "Grüße – 注文 #42 ✓", text: "Ünïcödé bödy: naïve café, 日本語, emoji 📬\n" },
  attachment: {
    subject: "Invoice",
    text: "Attached.",
    attachments: [
      { filename: "invoice.pdf", content: Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256)) },
      { filename: "notes.txt", content: "line one  \r\nline two\t\r\n\r\n" },
    ],
  },
};

async function compose(
  extra: Record<string, unknown>,
  dkim?: ReturnType<typeof nodemailerDkimOptions>,
): Promise<Buffer> {
  const transport = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: "windows",
    dkim,
  });
  const info = await transport.sendMail({
    from: `Acme Billing <billing@${DOMAIN}>`,
    to: "Customer <customer@example.net>",
    messageId: `<stable-1@${DOMAIN}>`,
    ...extra,
  });
  transport.close();
  return info.message as Buffer;
}

// An 8-bit message as a client might hand it over: raw UTF-8 headers (RFC 6532), a 990-octet line,
// whitespace runs, trailing blanks and trailing empty lines, all of which canonicalisation must handle.
const RAW_8BIT = Buffer.from(
  [
    `From: Zoë <zoe@${DOMAIN}>`,
    "To: customer@example.net",
    "Subject:   Grüße,\t folded",
    "   across lines  ",
    `Message-ID: <raw-1@${DOMAIN}>`,
    "Date: Tue, 01 Apr 2031 10:00:00 +0000",
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 8bit",
    "",
    "Hellö  wörld \t",
    "y".repeat(990),
    "",
    "",
  ].join("\r\n"),
);

describe("nodemailer signing with Mailroom's dkim option, checked by mailauth", () => {
  it.each(Object.entries(MESSAGES))("passes for a %s message (relaxed/relaxed)", async (_, content) => {
    const signed = await compose(content, nodemailerDkimOptions([rsaKey, edKey]));
    expect(await verify(signed)).toEqual([
      {
        result: "pass",
        selector: SELECTORS.rsa,
        algorithm: "rsa-sha256",
        canonicalization: "relaxed/relaxed",
      },
    ]);
  });

  it("dual-signs with two RSA keys during a rotation", async () => {
    const signed = await compose(MESSAGES.plain, nodemailerDkimOptions([rsaKey, rsaNextKey]));
    expect((await verify(signed)).map((v) => [v.selector, v.result])).toEqual([
      [SELECTORS.rsa, "pass"],
      [SELECTORS.rsaNext, "pass"],
    ]);
  });

  it("fails when the DNS record does not hold the signing key", async () => {
    dns.setTxt(
      dkimRecordName(SELECTORS.rsa, DOMAIN),
      splitTxtValue(dkimTxtValue("rsa", generated.rsaNext.publicKey)),
    );
    const signed = await compose(MESSAGES.plain, nodemailerDkimOptions([rsaKey]));
    expect(await passes(signed)).toEqual([false]);
  });
});

describe("signMessage (RSA + Ed25519, RFC 8463), checked by mailauth", () => {
  const canonicalizations: Canonicalization[] = ["relaxed/relaxed", "simple/simple"];
  const inputs: [string, () => Promise<Buffer>][] = [
    ...Object.entries(MESSAGES).map(([name, content]): [string, () => Promise<Buffer>] => [
      name,
      () => compose(content),
    ]),
    ["raw 8-bit UTF-8 with a 990-octet line", async () => RAW_8BIT],
  ];

  for (const c of canonicalizations) {
    it.each(inputs)(`passes both signatures for a %s message (${c})`, async (_, make) => {
      const signed = signMessage(await make(), [rsaKey, edKey], { canonicalization: c });
      expect(await verify(signed)).toEqual([
        { result: "pass", selector: SELECTORS.rsa, algorithm: "rsa-sha256", canonicalization: c },
        { result: "pass", selector: SELECTORS.ed25519, algorithm: "ed25519-sha256", canonicalization: c },
      ]);
    });
  }

  it("signs off the event loop (signMessageAsync) to the same bytes, which pass", async () => {
    const now = new Date("2031-05-01T12:00:00Z");
    for (const c of canonicalizations) {
      const offThread = await signMessageAsync(RAW_8BIT, [rsaKey, edKey], { canonicalization: c, now });
      // RSA PKCS#1 v1.5 and Ed25519 are deterministic: the same input gives the same signature.
      expect(offThread.equals(signMessage(RAW_8BIT, [rsaKey, edKey], { canonicalization: c, now }))).toBe(
        true,
      );
      expect((await verify(offThread)).map((v) => v.result)).toEqual(["pass", "pass"]);
    }
  });

  it("fails each signature whose DNS record does not match its key", async () => {
    dns.setTxt(dkimRecordName(SELECTORS.ed25519, DOMAIN), [
      dkimTxtValue("ed25519", (await generateDkimKey("ed25519")).publicKey),
    ]);
    const signed = signMessage(RAW_8BIT, [rsaKey, edKey]);
    expect(await passes(signed)).toEqual([true, false]);
  });

  it("tolerates whitespace changes in transit under relaxed, not under simple", async () => {
    // Byte-level edit (the body is UTF-8): collapse a double space, add trailing blanks to the line.
    const latin1 = (text: string) => Buffer.from(text, "utf8").toString("latin1");
    const alter = (message: Buffer) => {
      const edited = message.toString("latin1").replace(latin1("Hellö  wörld \t"), latin1("Hellö wörld   "));
      expect(edited).not.toBe(message.toString("latin1"));
      return Buffer.from(edited, "latin1");
    };
    const relaxed = alter(signMessage(RAW_8BIT, [rsaKey], { canonicalization: "relaxed/relaxed" }));
    const simple = alter(signMessage(RAW_8BIT, [rsaKey], { canonicalization: "simple/simple" }));
    expect(await passes(relaxed)).toEqual([true]);
    expect(await passes(simple)).toEqual([false]);
  });

  it("fails once a signed header is changed", async () => {
    const signed = signMessage(RAW_8BIT, [rsaKey, edKey], { canonicalization: "relaxed/relaxed" });
    const forged = Buffer.from(signed.toString("latin1").replace("To: customer@", "To: attacker@"), "latin1");
    expect(await passes(forged)).toEqual([false, false]);
  });

  it("over-signs From and the MIME fields: adding one on the way breaks the signature", async () => {
    // As swaks or curl send it: no MIME-Version, Content-Type or Content-Transfer-Encoding at all.
    const bare = Buffer.from("From: a@acme.test\r\nTo: b@example.test\r\nSubject: x\r\n\r\nHello.\r\n");
    const signed = signMessage(bare, [rsaKey]);
    expect(signed.toString("latin1")).toMatch(
      /h=subject:to:from:from:mime-version:content-type:content-transfer-encoding;/,
    );
    expect(await passes(signed)).toEqual([true]);
    const added = (line: string) => Buffer.concat([Buffer.from(`${line}\r\n`), signed]);
    expect(await passes(added("From: Boss <boss@acme.test>"))).toEqual([false]);
    expect(await passes(added("Content-Type: text/html"))).toEqual([false]);
    expect(await passes(added("X-Unsigned: fine"))).toEqual([true]);
  });
});
