/**
 * `make release-cut` (scripts/release/cut.sh) in a clone of this repository: the release commit names the
 * version everywhere and dates the changelog, the tag points at it, and releases/index.json records it in a
 * second commit; cutting the same version again is refused.
 */
import { execFile } from "node:child_process";
import { appendFile, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { REPO_ROOT } from "../helm/support/helm.ts";

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

it("cuts 9.8.7 in two commits and a tag, then refuses to cut it again", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-cut-"));
  dirs.push(dir);
  const clone = path.join(dir, "repo");
  await run("git", ["clone", "--quiet", "--no-hardlinks", REPO_ROOT, clone]);
  await symlink(path.join(REPO_ROOT, "node_modules"), path.join(clone, "node_modules"));
  // .gitignore's `node_modules/` matches a directory, not this symlink: keep the clone's tree clean.
  await appendFile(path.join(clone, ".git/info/exclude"), "/node_modules\n");
  const git = async (...args: string[]) => (await run("git", ["-C", clone, ...args])).stdout.trim();
  await git("config", "user.email", "release@example.test");
  await git("config", "user.name", "Release Test");
  const before = await git("rev-parse", "HEAD");

  const { stdout } = await run("bash", [path.join(clone, "scripts/release/cut.sh"), "9.8.7"]);
  expect(stdout).toContain("release 9.8.7 cut from");
  const [record, cut, base] = (await git("log", "--format=%H %s", "-3")).split("\n");
  expect(base?.split(" ")[0]).toBe(before);
  expect(cut).toMatch(/ chore\(release\): 9\.8\.7$/);
  expect(record).toMatch(/ chore\(release\): record 9\.8\.7 in releases\/index\.json$/);
  const cutCommit = cut?.split(" ")[0] as string;
  expect(await git("rev-parse", "v9.8.7^{commit}")).toBe(cutCommit);

  const index = JSON.parse(await readFile(path.join(clone, "releases/index.json"), "utf8"));
  const last = index.releases.at(-1);
  expect(last).toEqual({
    version: "9.8.7",
    commit: cutCommit,
    date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
  });
  // The release commit itself says 9.8.7 everywhere, and its changelog has the dated section.
  await run(
    path.join(REPO_ROOT, "node_modules/node/bin/node"),
    ["scripts/release/versions.ts", "check", "9.8.7"],
    {
      cwd: clone,
    },
  );
  expect(await git("show", `${cutCommit}:CHANGELOG.md`)).toMatch(
    new RegExp(`^## Unreleased\\n\\n## \\[9\\.8\\.7\\] - ${last.date}$`, "m"),
  );

  await expect(run("bash", [path.join(clone, "scripts/release/cut.sh"), "9.8.7"])).rejects.toThrow(
    /tag v9\.8\.7 exists already/,
  );
  await expect(run("bash", [path.join(clone, "scripts/release/cut.sh"), "9.8"])).rejects.toThrow(
    /VERSION=x\.y\.z/,
  );
});
