/**
 * releases/index.json: every release cut, newest last, as {version, commit, date}: the version, the 40-hex
 * commit it was cut from (the commit `make release` builds), and the UTC day it was cut. The upgrade test
 * reads it to build the last release's programs; docs/releasing.md says how a release is cut.
 *
 *   node scripts/release/record.ts x.y.z <commit> [YYYY-MM-DD]   # append one (scripts/release/cut.sh runs it)
 *   node scripts/release/record.ts                              # check the file; exit 1 naming what is wrong
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isVersion } from "./versions.ts";

export interface Release {
  version: string;
  commit: string;
  date: string;
}

const INDEX = path.resolve(import.meta.dirname, "../../releases/index.json");

/** What is wrong with the index's content, one line each; empty when it is well formed. */
export function indexProblems(value: unknown): string[] {
  const releases = (value as { releases?: unknown } | null)?.releases;
  if (!Array.isArray(releases) || Object.keys(value as object).length !== 1)
    return ['the file must be exactly {"releases": [...]}'];
  const problems: string[] = [];
  const seen = new Set<string>();
  releases.forEach((r: Partial<Release>, i) => {
    const at = `releases[${i}]`;
    if (typeof r !== "object" || r === null || Object.keys(r).sort().join() !== "commit,date,version") {
      problems.push(`${at} must have exactly version, commit and date`);
      return;
    }
    if (typeof r.version !== "string" || !isVersion(r.version)) problems.push(`${at}.version is not x.y.z`);
    if (typeof r.commit !== "string" || !/^[0-9a-f]{40}$/.test(r.commit))
      problems.push(`${at}.commit is not a 40-hex commit`);
    if (typeof r.date !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(r.date) || Number.isNaN(Date.parse(r.date)))
      problems.push(`${at}.date is not YYYY-MM-DD`);
    if (seen.has(String(r.version))) problems.push(`${at}.version ${r.version} is recorded twice`);
    seen.add(String(r.version));
    const previous = releases[i - 1] as Partial<Release> | undefined;
    if (previous && typeof previous.date === "string" && typeof r.date === "string" && r.date < previous.date)
      problems.push(`${at} is older than the one before it (newest last)`);
  });
  return problems;
}

export function readReleases(file = INDEX): Release[] {
  const value = JSON.parse(readFileSync(file, "utf8")) as { releases: Release[] };
  const problems = indexProblems(value);
  if (problems.length > 0) throw new Error(`${file}: ${problems.join("; ")}`);
  return value.releases;
}

export function recordRelease(release: Release, file = INDEX): void {
  const releases = readReleases(file);
  const next = { releases: [...releases, release] };
  const problems = indexProblems(next);
  if (problems.length > 0) throw new Error(`cannot record ${release.version}: ${problems.join("; ")}`);
  writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
}

if (import.meta.main) {
  const [version, commit, date = new Date().toISOString().slice(0, 10)] = process.argv.slice(2);
  try {
    if (version && commit) recordRelease({ version, commit, date });
    process.stdout.write(`releases/index.json: ${readReleases().length} release(s)\n`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
