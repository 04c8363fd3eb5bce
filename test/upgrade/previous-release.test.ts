import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BASELINE_COMMIT, previousRelease } from "../../scripts/previous-release.ts";

// Which commit the upgrade starts from (ADR 0041): the newest release not cut from HEAD, else the baseline.

const head = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim();
const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-releases-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const indexWith = (releases: unknown[]) => {
  const file = path.join(dir, `index-${releases.length}-${Math.random()}.json`);
  writeFileSync(file, JSON.stringify({ releases }));
  return file;
};
const A = "a".repeat(40);
const B = "b".repeat(40);

describe("previousRelease", () => {
  it("is the baseline commit while no release is recorded", () => {
    expect(previousRelease(path.join(dir, "missing.json"))).toEqual({
      version: "baseline",
      commit: BASELINE_COMMIT,
    });
    expect(previousRelease(indexWith([]))).toEqual({ version: "baseline", commit: BASELINE_COMMIT });
  });

  it("is the newest release (the last entry)", () => {
    const index = indexWith([
      { version: "0.1.0", commit: A, date: "2026-11-28" },
      { version: "0.2.0", commit: B, date: "2026-12-05" },
    ]);
    expect(previousRelease(index)).toEqual({ version: "0.2.0", commit: B });
  });

  it("skips a release cut from HEAD itself: upgrading to the same code proves nothing", () => {
    const index = indexWith([
      { version: "0.1.0", commit: A, date: "2026-11-28" },
      { version: "0.2.0", commit: head, date: "2026-12-05" },
    ]);
    expect(previousRelease(index)).toEqual({ version: "0.1.0", commit: A });
    expect(previousRelease(indexWith([{ version: "0.1.0", commit: head, date: "2026-11-28" }]))).toEqual({
      version: "baseline",
      commit: BASELINE_COMMIT,
    });
  });

  it("names a commit this repository has", () => {
    expect(
      execFileSync("git", ["rev-parse", `${BASELINE_COMMIT}^{commit}`], { encoding: "utf8" }).trim(),
    ).toBe(BASELINE_COMMIT);
  });
});
