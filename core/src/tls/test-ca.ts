// @peculiar/x509 resolves its ASN.1 schema classes through tsyringe, which needs the reflect polyfill.
import "reflect-metadata";
import { createHash, KeyObject, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A server certificate and its key, in PEM, as an SMTP or HTTPS test server takes them. */
export interface IssuedCertificate {
  key: string;
  cert: string;
  /** The certificate in DER, and its SubjectPublicKeyInfo in DER (what TLSA selectors 0 and 1 hash). */
  der: Buffer;
  spki: Buffer;
}

export interface TestCa {
  /** The CA certificate in PEM: what a client is told to trust. */
  cert: string;
  der: Buffer;
  /** A leaf certificate for `names`, valid from yesterday for a year unless `expired`. */
  issue(names: string[], options?: { expired?: boolean }): Promise<IssuedCertificate>;
}

const serial = () =>
  createHash("sha256")
    .update(webcrypto.getRandomValues(new Uint8Array(16)))
    .digest("hex")
    .slice(0, 30)
    .replace(/^[89a-f]/, "1");

const pem = (key: webcrypto.CryptoKey) =>
  KeyObject.from(key).export({ type: "pkcs8", format: "pem" }).toString();

/** A throw-away certificate authority for tests (`@internal`, never used by a program): receivers with valid, expired and wrong-name certificates. */
export async function createTestCa(name = "Mailroom test CA"): Promise<TestCa> {
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 3650 * DAY_MS),
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  return {
    cert: ca.toString("pem"),
    der: Buffer.from(ca.rawData),
    async issue(names, options = {}) {
      const keys = (await webcrypto.subtle.generateKey(ALG, true, [
        "sign",
        "verify",
      ])) as webcrypto.CryptoKeyPair;
      const notAfter = options.expired ? now - DAY_MS : now + 365 * DAY_MS;
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: `CN=${names[0] ?? "test"}`,
        issuer: ca.subject,
        notBefore: new Date(Math.min(now, notAfter) - 30 * DAY_MS),
        notAfter: new Date(notAfter),
        signingAlgorithm: ALG,
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: "dns", value }))),
          await x509.AuthorityKeyIdentifierExtension.create(ca),
        ],
      });
      return {
        key: pem(keys.privateKey),
        cert: `${cert.toString("pem")}\n${ca.toString("pem")}`,
        der: Buffer.from(cert.rawData),
        spki: Buffer.from(cert.publicKey.rawData),
      };
    },
  };
}
