import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

// Debian's python3-dkim is installed for the system interpreter, which a pyenv shim on PATH may hide.
const PYTHON = "/usr/bin/python3";
const SCRIPT = path.join(import.meta.dirname, "dkimpy-verify.py");

/** Why dkimpy cannot run here, or undefined when it can (scripts/install-system-packages.sh installs it). */
export function dkimpyUnavailable(): string | undefined {
  const probe = spawnSync(PYTHON, ["-c", "import dkim, dns.resolver, nacl"], { encoding: "utf8" });
  return probe.status === 0
    ? undefined
    : `python3-dkim is not installed (${probe.stderr?.trim() || probe.error})`;
}

export interface DkimpyResult {
  signatures: { s: string; a: string; ok: boolean }[];
}

/**
 * Verifies each message's DKIM signatures with dkimpy in a Python process per 1,000 messages (two at a time),
 * each looking the keys up from the DNS server at `dnsAddress` (`host:port`) as it goes, and keeping each answer
 * for its run. Answers in the order of `messages`.
 */
export async function verifyWithDkimpy(
  messages: readonly Buffer[],
  dnsAddress: string,
): Promise<DkimpyResult[]> {
  const [host, port] = dnsAddress.split(":") as [string, string];
  const dir = await mkdtemp(path.join(tmpdir(), "dkimpy-"));
  try {
    const files = messages.map((_, i) => path.join(dir, `${i}.eml`));
    await Promise.all(messages.map((raw, i) => writeFile(files[i] as string, raw)));
    // Two processes (the machines have two cores), each with at most 1,000 files per argument list.
    const chunk = Math.min(1000, Math.ceil(files.length / 2));
    const chunks: string[][] = [];
    for (let start = 0; start < files.length; start += chunk) chunks.push(files.slice(start, start + chunk));
    const results: DkimpyResult[] = [];
    for (let i = 0; i < chunks.length; i += 2) {
      const pair = await Promise.all(chunks.slice(i, i + 2).map((c) => run([host, port, ...c])));
      for (const part of pair) results.push(...part);
    }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(args: string[]): Promise<DkimpyResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`dkimpy-verify exited ${code}: ${err.slice(0, 2000)}`));
      resolve(
        out
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as DkimpyResult),
      );
    });
  });
}
