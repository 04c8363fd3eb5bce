/**
 * What a release is (issue 34 item 1, issue 28 item 4): one version in every place that names it, what
 * `mailroom --version` prints, a CHANGELOG section per recorded release, and releases/index.json in exactly
 * the shape the upgrade test reads, each entry's commit naming that version.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { indexProblems, readReleases } from "../../scripts/release/record.ts";
import { disagreements, versionPlaces } from "../../scripts/release/versions.ts";
import { REPO_ROOT } from "../helm/support/helm.ts";

const run = promisify(execFile);
const version = JSON.parse(readFileSync(path.join(REPO_ROOT, "cli/package.json"), "utf8")).version as string;

describe("one version", () => {
  it("is named alike by the package.json files, the lockfile, and the chart's version, appVersion and image", () => {
    expect(versionPlaces().length).toBeGreaterThanOrEqual(20);
    expect(disagreements()).toEqual([]);
  });

  it("is what `mailroom --version` prints", async () => {
    const { stdout } = await run(process.execPath, [
      path.join(REPO_ROOT, "cli/bin/mailroom.js"),
      "--version",
    ]);
    expect(stdout.trim()).toBe(version);
  });

  it("names a place that disagrees", () => {
    expect(disagreements("9.9.9")).toContain(
      `charts/mailroom/Chart.yaml appVersion says ${version}, not 9.9.9`,
    );
  });
});

describe("releases/index.json", () => {
  it("is well formed, newest last", () => {
    const value = JSON.parse(readFileSync(path.join(REPO_ROOT, "releases/index.json"), "utf8"));
    expect(indexProblems(value)).toEqual([]);
  });

  it("refuses what the upgrade test could not read", () => {
    const ok = { version: "0.1.0", commit: "a".repeat(40), date: "2026-11-28" };
    expect(indexProblems({ releases: [ok] })).toEqual([]);
    expect(indexProblems([ok])).toEqual(['the file must be exactly {"releases": [...]}']);
    expect(indexProblems({ releases: [ok], extra: 1 })).toEqual([
      'the file must be exactly {"releases": [...]}',
    ]);
    expect(indexProblems({ releases: [{ ...ok, commit: "abc123" }] })).toEqual([
      "releases[0].commit is not a 40-hex commit",
    ]);
    expect(indexProblems({ releases: [{ ...ok, version: "v0.1" }] })).toEqual([
      "releases[0].version is not x.y.z",
    ]);
    expect(indexProblems({ releases: [{ ...ok, date: "28/11/2026" }] })).toEqual([
      "releases[0].date is not YYYY-MM-DD",
    ]);
    expect(indexProblems({ releases: [{ ...ok, tag: "v0.1.0" }] })).toEqual([
      "releases[0] must have exactly version, commit and date",
    ]);
    expect(indexProblems({ releases: [ok, ok] })).toEqual(["releases[1].version 0.1.0 is recorded twice"]);
    expect(indexProblems({ releases: [ok, { ...ok, version: "0.0.9", date: "2026-01-01" }] })).toEqual([
      "releases[1] is older than the one before it (newest last)",
    ]);
  });

  // Each recorded release: its CHANGELOG section exists, and its commit (when this clone has it) says its version.
  const changelog = readFileSync(path.join(REPO_ROOT, "CHANGELOG.md"), "utf8");
  const releases = readReleases();
  it.each(releases.map((r) => [r.version, r] as const))(
    "%s has a CHANGELOG section and its commit names it",
    async (_, r) => {
      expect(changelog).toMatch(
        new RegExp(`^## \\[${r.version.replaceAll(".", "\\.")}\\] - ${r.date}$`, "m"),
      );
      if (!existsSync(path.join(REPO_ROOT, ".git"))) return;
      const { stdout } = await run("git", ["-C", REPO_ROOT, "show", `${r.commit}:cli/package.json`]);
      expect(JSON.parse(stdout).version).toBe(r.version);
    },
  );

  it("leaves the changelog an Unreleased section for what comes next", () => {
    expect(changelog).toMatch(/^## Unreleased$/m);
  });
});
