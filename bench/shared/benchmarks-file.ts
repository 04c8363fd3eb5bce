/**
 * BENCHMARKS.md at the repository root holds one `## ` section per benchmark. Each benchmark replaces only
 * its own section (from its heading to the next `## ` heading), so the figures of the others survive.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export const BENCHMARKS_FILE = fileURLToPath(new URL("../../BENCHMARKS.md", import.meta.url));

const HEADER = `# Benchmarks

Figures in this file are produced by the benchmarks under \`bench/\`, never by timed tests. Each benchmark
starts what it measures on this machine (its own Postgres, servers and loopback load generator), measures a
baseline in the same run on the same setup, and checks correctness (rows written) before it reports; each
section below is rewritten by the command it names, with the date and the machine. Figures from a shared or
busy machine are noisy: compare ratios to the same run's baseline rather than absolute numbers.
`;

/** Replaces (or appends) the section starting with `heading` (a `## ` line); `body` follows the heading. */
export async function writeBenchmarkSection(heading: string, body: string, file = BENCHMARKS_FILE) {
  if (!heading.startsWith("## ")) throw new Error(`not a level-2 heading: ${heading}`);
  const current = existsSync(file) ? await readFile(file, "utf8") : HEADER;
  const lines = current.split("\n");
  const section = [heading, "", ...body.trimEnd().split("\n"), ""];
  const start = lines.findIndex((line) => line.trimEnd() === heading);
  let next: string[];
  if (start < 0) {
    next = [...trimTrailingBlank(lines), "", ...section];
  } else {
    const after = lines.findIndex((line, i) => i > start && line.startsWith("## "));
    const tail = after < 0 ? [] : lines.slice(after);
    next = [...lines.slice(0, start), ...section, ...tail];
  }
  await writeFile(file, `${trimTrailingBlank(next).join("\n")}\n`);
}

function trimTrailingBlank(lines: string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1]?.trim() === "") out.pop();
  return out;
}

/** Number formats shared by the reports. */
export const int = (n: number) => Math.round(n).toLocaleString("en-US");
export const ms = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));
export const pct = (n: number) => `${Math.round(n * 100)} %`;
export const mark = (ok: boolean) => (ok ? "✓" : "✗ missed");

/** The command line a run can be repeated with: the settings it was given, then `make bench` and the script. */
export function commandLine(script: string, settings: readonly string[]): string {
  const given = settings
    .filter((name) => process.env[name])
    .map((name) => (name === "DATABASE_URL" ? "DATABASE_URL=…" : `${name}=${process.env[name]}`));
  return `${[...given, "make bench"].join(" ")} (npx node ${script})`;
}
