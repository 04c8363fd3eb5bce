// The previous release's programs, built once per commit outside the repo, for the upgrade test (ADR 0041).
// Run directly (`npx node scripts/previous-release.ts`) it builds them ahead of the test and prints the folder.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO = path.resolve(import.meta.dirname, "..");

/**
 * The commit the upgrade starts from while `releases/index.json` records no release other than HEAD: main at the
 * end of the session that wrote this test (before the first release was cut). The one place it is written.
 */
export const BASELINE_COMMIT = "99a8798bc3f87c75fb1708c6d949583306134694";

export interface PreviousRelease {
  /** The release's version, or "baseline" for BASELINE_COMMIT. */
  version: string;
  commit: string;
}

interface ReleaseIndex {
  releases?: Array<{ version?: string; commit?: string; date?: string }>;
}

function git(args: string[]): string {
  return execFileSync("git", args, { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/**
 * The newest release of `releases/index.json` (newest last) cut from another commit than HEAD; the baseline
 * when there is none. A release cut from HEAD itself is skipped: upgrading to the same code proves nothing.
 */
export function previousRelease(indexFile = path.join(REPO, "releases/index.json")): PreviousRelease {
  const head = git(["rev-parse", "HEAD"]);
  const index: ReleaseIndex = existsSync(indexFile) ? JSON.parse(readFileSync(indexFile, "utf8")) : {};
  const release = [...(index.releases ?? [])]
    .reverse()
    .find((r) => r.commit && r.version && r.commit !== head);
  return release?.commit && release.version
    ? { version: release.version, commit: release.commit }
    : { version: "baseline", commit: BASELINE_COMMIT };
}

/**
 * Makes `commit` available to this clone: CI clones may be shallow or single-branch, so it is fetched from
 * `origin` when missing; throws a message saying what to do when that is impossible.
 */
export function ensureCommit(commit: string, progress: (line: string) => void): void {
  const present = () =>
    spawnSync("git", ["cat-file", "-e", `${commit}^{commit}`], { cwd: REPO }).status === 0;
  if (present()) return;
  progress(`commit ${commit.slice(0, 12)} is not in this clone; fetching it from origin`);
  for (const args of [
    ["fetch", "--quiet", "origin", commit],
    ["fetch", "--quiet", "--unshallow", "origin"],
  ]) {
    spawnSync("git", args, { cwd: REPO, stdio: "ignore" });
    if (present()) return;
  }
  throw new Error(
    `the previous release's commit ${commit} is not in this clone and could not be fetched from origin; ` +
      "clone with full history (or `git fetch origin " +
      commit +
      "`) before running the upgrade test",
  );
}

/** Where builds are cached: outside the repo, one folder per commit, kept across runs. */
export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "mailroom", "upgrade");
}

/**
 * The previous release's source tree with its production dependencies installed (`npm ci` from its own lockfile),
 * under `<cache>/<sha>/tree`; built once, then reused. The tree is exported with `git archive` rather than a
 * registered `git worktree`, so that deleting the cache leaves no dangling worktree entry in the clone.
 * Returns the path of its `mailroom` executable.
 */
export function buildRelease(release: PreviousRelease, progress: (line: string) => void): string {
  const root = path.join(cacheDir(), release.commit);
  const tree = path.join(root, "tree");
  const bin = path.join(tree, "cli/bin/mailroom.js");
  const stamp = path.join(root, "built");
  if (existsSync(stamp) && existsSync(bin)) {
    progress(`previous release ${release.version} (${release.commit.slice(0, 12)}) cached in ${tree}`);
    return bin;
  }
  ensureCommit(release.commit, progress);
  // Built in a scratch folder and renamed into place: an interrupted build is never taken for a finished one.
  const scratch = path.join(root, `building-${process.pid}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  progress(`building previous release ${release.version} (${release.commit.slice(0, 12)}) in ${root}`);
  const archive = spawnSync("git", ["archive", "--format=tar", release.commit], {
    cwd: REPO,
    maxBuffer: 1 << 30,
  });
  if (archive.status !== 0) throw new Error(`git archive ${release.commit} failed: ${archive.stderr}`);
  execFileSync("tar", ["-x", "-C", scratch], { input: archive.stdout });
  progress("npm ci --omit=dev (the programs need only their runtime dependencies) …");
  const started = Date.now();
  const npm = spawnSync("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: scratch,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (npm.status !== 0) throw new Error(`npm ci of ${release.commit} failed (exit ${npm.status})`);
  progress(`npm ci took ${Math.round((Date.now() - started) / 1000)} s`);
  rmSync(tree, { recursive: true, force: true });
  renameSync(scratch, tree);
  writeFileSync(stamp, `${release.version} ${release.commit}\n`);
  return bin;
}

if (import.meta.main) {
  const release = previousRelease();
  const bin = buildRelease(release, (line) => process.stderr.write(`[upgrade] ${line}\n`));
  process.stdout.write(`${bin}\n`);
}
