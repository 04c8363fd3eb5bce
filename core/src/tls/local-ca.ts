// @peculiar/x509 resolves its ASN.1 schema classes through tsyringe, which needs the reflect polyfill.
import "reflect-metadata";
import { KeyObject, X509Certificate as NodeX509, webcrypto } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as x509 from "@peculiar/x509";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface LocalTlsFiles {
  caCertFile: string;
  certFile: string;
  keyFile: string;
  /** True when this call created new files. */
  created: boolean;
}

function pemKey(key: CryptoKey): string {
  return KeyObject.from(key).export({ type: "pkcs8", format: "pem" }).toString();
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString("hex")
    .replace(/^[89a-f]/, "1");
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
}

function stillValid(certPem: string, names: readonly string[]): boolean {
  const cert = new NodeX509(certPem);
  const validFor30Days = new Date(cert.validTo).getTime() - Date.now() > 30 * DAY_MS;
  return validFor30Days && names.every((name) => cert.checkHost(name) !== undefined || cert.checkIP(name));
}

/**
 * Ensures a local CA and a server certificate under `dir` (ca.crt, ca.key, server.crt, server.key) for local
 * runs: the CA is created once and kept, so a developer trusts it once (`curl --cacert <dir>/ca.crt`); the
 * server certificate is renewed when near expiry or when the host names change.
 */
export async function ensureLocalCertificates(dir: string, names: readonly string[]): Promise<LocalTlsFiles> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const files = {
    caCertFile: path.join(dir, "ca.crt"),
    caKeyFile: path.join(dir, "ca.key"),
    certFile: path.join(dir, "server.crt"),
    keyFile: path.join(dir, "server.key"),
  };
  let created = false;
  let caCert: x509.X509Certificate;
  let caKey: CryptoKey;
  if (existsSync(files.caCertFile) && existsSync(files.caKeyFile)) {
    caCert = new x509.X509Certificate(await readFile(files.caCertFile, "utf8"));
    const keyObject = KeyObject.from(
      await webcrypto.subtle.importKey(
        "pkcs8",
        Buffer.from((await readFile(files.caKeyFile, "utf8")).replace(/-----[^-]+-----|\s/g, ""), "base64"),
        ALG,
        true,
        ["sign"],
      ),
    );
    caKey = keyObject.toCryptoKey(ALG, true, ["sign"]) as CryptoKey;
  } else {
    const keys = await newKeys();
    const now = Date.now();
    caCert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: "CN=Mailroom local CA",
      notBefore: new Date(now - DAY_MS),
      notAfter: new Date(now + 10 * 365 * DAY_MS),
      signingAlgorithm: ALG,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    caKey = keys.privateKey;
    await writeFile(files.caCertFile, caCert.toString("pem"));
    await writeFile(files.caKeyFile, pemKey(caKey), { mode: 0o600 });
    created = true;
  }

  if (!created && existsSync(files.certFile) && stillValid(await readFile(files.certFile, "utf8"), names)) {
    return { caCertFile: files.caCertFile, certFile: files.certFile, keyFile: files.keyFile, created };
  }
  const keys = await newKeys();
  const now = Date.now();
  const isIp = (name: string) => /^[\d.]+$/.test(name) || name.includes(":");
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: "CN=Mailroom local API",
    issuer: caCert.subject,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 397 * DAY_MS),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        names.map((name) => (isIp(name) ? { type: "ip", value: name } : { type: "dns", value: name })),
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  await writeFile(files.certFile, cert.toString("pem"));
  await writeFile(files.keyFile, pemKey(keys.privateKey), { mode: 0o600 });
  await chmod(files.keyFile, 0o600);
  return { caCertFile: files.caCertFile, certFile: files.certFile, keyFile: files.keyFile, created: true };
}
