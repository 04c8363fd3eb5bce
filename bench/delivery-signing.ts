/**
 * The DKIM signing ceiling of this machine, measured in the delivery benchmark's own run: RSA-2048
 * signatures per second of a typical message with core's signer, on one core (synchronous, as nodemailer's
 * signer works) and on libuv's thread pool across every core (how the worker signs). Every delivered email
 * needs one signature, so no sender on this machine delivers faster than the second figure — before
 * Postgres, the SMTP sink and the SMTP exchange itself take their share of the same cores.
 */
import { createPrivateKey } from "node:crypto";
import { type SigningKey, signMessage, signMessageAsync } from "../core/src/domains/index.ts";

export interface SigningCeiling {
  oneCore: number;
  allCores: number;
}

const SECONDS = 2;

function typicalMessage(i: number): Buffer {
  return Buffer.from(
    [
      "From: Acme <billing@acme.bench>",
      "To: customer@example.test",
      `Subject: Your receipt #${i}`,
      `Message-ID: <${i}@acme.bench>`,
      "Date: Sun, 22 Nov 2026 12:00:00 +0000",
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "",
      "Thank you for your order. ".repeat(30),
      "",
    ].join("\r\n"),
  );
}

export async function measureSigningCeiling(key: {
  domainName: string;
  selector: string;
  privateKeyPem: string;
}): Promise<SigningCeiling> {
  const keys: SigningKey[] = [
    {
      algorithm: "rsa",
      domainName: key.domainName,
      selector: key.selector,
      privateKey: createPrivateKey(key.privateKeyPem),
    },
  ];
  let n = 0;
  let started = performance.now();
  while (performance.now() - started < SECONDS * 1000) signMessage(typicalMessage(n++), keys);
  const oneCore = n / ((performance.now() - started) / 1000);

  n = 0;
  started = performance.now();
  const deadline = started + SECONDS * 1000;
  // Enough in flight to keep every thread of the pool busy.
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < deadline) await signMessageAsync(typicalMessage(n++), keys);
    }),
  );
  const allCores = n / ((performance.now() - started) / 1000);
  return { oneCore, allCores };
}
