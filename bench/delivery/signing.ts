/**
 * The DKIM signing ceiling of this machine, measured in the delivery benchmark's own run: RSA-2048
 * signatures per second of a typical message with core's signer, on one core (synchronous, as nodemailer's
 * signer works) and on libuv's thread pool across every core (how the worker signs). Every delivered email
 * needs one signature, so no sender on this machine delivers faster than the second figure — before
 * Postgres, the SMTP sink and the SMTP exchange itself take their share of the same cores. Beside core's signer
 * it measures what the machine itself can do: Node's raw `crypto.sign` (RSA-SHA256 of a fixed digest input,
 * no DKIM canonicalisation or header building) and `openssl speed rsa2048` when the binary is there.
 */
import { execFile } from "node:child_process";
import { createPrivateKey, sign } from "node:crypto";
import { promisify } from "node:util";
import { type SigningKey, signMessage, signMessageAsync } from "@mailroom/core/domains";
import { int, pct } from "../shared/benchmarks-file.ts";

export interface SigningCeiling {
  oneCore: number;
  allCores: number;
  /** Node's `crypto.sign("sha256", …)` with the same key on one core, signatures/s. */
  rawOneCore: number;
  /** `openssl speed rsa2048` sign/s on one core, when openssl is installed. */
  openssl?: number;
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

  const privateKey = keys[0]?.privateKey;
  const data = typicalMessage(0);
  n = 0;
  started = performance.now();
  while (performance.now() - started < SECONDS * 1000) {
    sign("sha256", data, privateKey as Parameters<typeof sign>[2]);
    n += 1;
  }
  const rawOneCore = n / ((performance.now() - started) / 1000);
  const openssl = await opensslSpeed();
  return { oneCore, allCores, rawOneCore, ...(openssl === undefined ? {} : { openssl }) };
}

/** `openssl speed rsa2048` sign/s, or undefined when there is no openssl binary (or its output is unknown). */
async function opensslSpeed(): Promise<number | undefined> {
  try {
    const { stdout } = await promisify(execFile)(
      "openssl",
      ["speed", "-seconds", String(SECONDS), "rsa2048"],
      {
        timeout: 60_000,
      },
    );
    // "rsa 2048 bits 0.000306s 0.000020s   3270.3  50642.7": sign/s is the first rate after the two times.
    const match = /^rsa\s+2048 bits\s+\S+s\s+\S+s\s+([\d.]+)/m.exec(stdout);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The signing ceiling beside the throughput goal, as a BENCHMARKS.md paragraph. */
export function ceilingLine(s: SigningCeiling, goalRatio: number, baselinePerSecond: number): string {
  const goal = goalRatio * baselinePerSecond;
  return (
    `Ceiling, measured in the same run: this machine makes ${int(s.oneCore)} RSA-2048 DKIM signatures/s on one ` +
    `core and ${int(s.allCores)}/s on all its cores (core's signer, one signature per message); Node's raw ` +
    `\`crypto.sign\` makes ${int(s.rawOneCore)}/s on one core and ` +
    (s.openssl === undefined
      ? "`openssl speed` was not available. "
      : `\`openssl speed rsa2048\` ${int(s.openssl)} sign/s. `) +
    `${goalRatio}× the baseline is ${int(goal)} signed emails/s, ${pct(goal / s.allCores)} of the whole ` +
    "machine's signing capacity before Postgres, the sink and the SMTP exchanges take any of the same two cores."
  );
}
