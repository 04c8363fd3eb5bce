import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CHART_DIR, REPO_ROOT, runHelm } from "./support/helm.ts";

// What a release ships: `helm package` (as make chart-package runs it) names the chart by Chart.yaml's version
// and the image by appVersion, which must be the version the image is tagged with (the CLI's, printed by
// `mailroom --version`). And nothing a user copies may run `npx mailroom`: outside this repository that
// fetches an unrelated npm package of that name.
const run = promisify(execFile);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-chart-package-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("release artifacts", () => {
  it("helm package writes mailroom-<version>.tgz whose appVersion is the image's version", async () => {
    const chart = parse(await readFile(path.join(CHART_DIR, "Chart.yaml"), "utf8"));
    const cli = JSON.parse(await readFile(path.join(REPO_ROOT, "cli/package.json"), "utf8"));
    expect(chart.appVersion).toBe(cli.version);
    const packaged = await runHelm(["package", CHART_DIR, "--destination", dir]);
    expect(packaged.stderr).toBe("");
    const archive = path.join(dir, `mailroom-${chart.version}.tgz`);
    expect(packaged.stdout).toContain(archive);
    const { stdout } = await run("tar", ["-xzOf", archive, "mailroom/Chart.yaml"]);
    expect(parse(stdout)).toMatchObject({ version: chart.version, appVersion: cli.version });
    const { stdout: listing } = await run("tar", ["-tzf", archive]);
    expect(listing).toContain("mailroom/templates/tests/send-email.yaml");
    expect(listing).toContain("mailroom/files/tests/send-email.mjs");
  });

  it("no tracked file tells anyone to run npx mailroom", async () => {
    const { stdout } = await run(
      "git",
      ["grep", "-n", "-I", "-E", "npx +mailroom", "--", ".", ":!test/helm/chart-release.test.ts"],
      {
        cwd: REPO_ROOT,
      },
    ).catch((error: { code?: number; stdout?: string }) => {
      // git grep exits 1 when nothing matches.
      if (error.code === 1) return { stdout: "" };
      throw error;
    });
    expect(stdout).toBe("");
  });
});
